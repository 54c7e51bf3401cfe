import DNSFilter
import DNSTestSupport
import DNSWire
import NIOCore
import NIOPosix
import Testing

@testable import DNSProxy

/// Conditional forwarding: the names of the home's own domains go to the router's DNS, every other
/// name to the upstreams, over real sockets.
@Suite struct ForwardRoutesTests {
    @Test func theLongestDomainThatCoversANameWinsOnLabelBoundaries() throws {
        let router = UpstreamPool(servers: [try SocketAddress(ipAddress: "192.168.1.1", port: 53)])
        let office = UpstreamPool(servers: [try SocketAddress(ipAddress: "10.0.0.1", port: 53)])
        let routes = ForwardRoutes([
            ForwardRule(domains: ["lan", "168.192.in-addr.arpa"], servers: router.servers.map(\.address)),
            ForwardRule(domains: ["office.lan"], servers: office.servers.map(\.address)),
        ])
        #expect(routes.pool(for: "printer.lan.")?.servers == router.servers)
        #expect(routes.pool(for: "LAN")?.servers == router.servers, "the domain itself, any case")
        #expect(routes.pool(for: "nas.office.lan")?.servers == office.servers, "the longer domain")
        #expect(routes.pool(for: "5.1.168.192.in-addr.arpa.")?.servers == router.servers)
        #expect(routes.pool(for: "plan.") == nil, "not a label boundary")
        #expect(routes.pool(for: "example.com.") == nil && ForwardRoutes().isEmpty)
    }

    @Test func aHomeNameAndItsReverseLookupGoToTheRouterAndNeverToTheUpstreams() async throws {
        let public_ = try await ScriptedUpstream()
        let router = try await ScriptedUpstream(records: [
            "printer.lan.": ["printer.lan. 60 IN A 192.168.1.20"],
            "20.1.168.192.in-addr.arpa.": ["20.1.168.192.in-addr.arpa. 60 IN PTR printer.lan."],
        ])
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let cache = CacheSettings()
        let server = try await DNSServer.start(
            listeners: ListenerSettings(addresses: [try SocketAddress(ipAddress: "127.0.0.1", port: 0)]),
            pipeline: QueryPipeline(
                policy: FilterPolicy(rules: RuleSetBuilder().build()), access: AccessControl(), cacheSettings: cache,
                cache: AnswerCache(settings: cache)),
            upstreams: UpstreamPool(servers: [try SocketAddress(ipAddress: "127.0.0.1", port: public_.port)]),
            routes: ForwardRoutes([
                ForwardRule(
                    domains: ["lan", "168.192.in-addr.arpa"],
                    servers: [try SocketAddress(ipAddress: "127.0.0.1", port: router.port)])
            ]),
            forwarding: ForwardSettings(attemptTimeout: .milliseconds(500), attempts: 2), group: group)
        func stop() async {
            await server.close()
            await router.stop()
            await public_.stop()
            try? await group.shutdownGracefully()
        }
        do {
            try ask(port: server.boundAddresses[0].port!, router: router, public: public_)
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    private func ask(port: Int, router: ScriptedUpstream, public public_: ScriptedUpstream) throws {
        let printer = try LdnsPacket(wire: try DNSClient.udp(LdnsBuild.query("Printer.LAN."), port: port))
        #expect(printer.answerRecords.first?.hasSuffix("192.168.1.20") == true)
        let reverse = try LdnsPacket(
            wire: try DNSClient.udp(LdnsBuild.query("20.1.168.192.in-addr.arpa.", type: "PTR"), port: port))
        #expect(reverse.answerRecords.first?.hasSuffix("printer.lan.") == true)
        let www = try LdnsPacket(wire: try DNSClient.udp(LdnsBuild.query("www.test."), port: port))
        #expect(www.answerRecords.first?.hasSuffix("192.0.2.1") == true)

        #expect(router.queries(for: "printer.lan.") == 1 && router.queries(for: "www.test.") == 0)
        #expect(public_.queries(for: "printer.lan.") == 0 && public_.queries(for: "20.1.168.192.in-addr.arpa.") == 0)
        #expect(public_.queries(for: "www.test.") == 1)
    }
}

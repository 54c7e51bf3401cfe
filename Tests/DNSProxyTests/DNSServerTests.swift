import DNSFilter
import DNSTestSupport
import DNSWire
import NIOCore
import NIOPosix
import Testing

@testable import DNSProxy

/// The real listeners on a loopback port, with a scripted upstream, queried over real sockets.
@Suite struct DNSServerTests {
    struct Running {
        let server: DNSServer
        let upstreams: [ScriptedUpstream]
        let group: MultiThreadedEventLoopGroup
        var port: Int { server.boundAddresses[0].port! }

        func stop() async {
            await server.close()
            for upstream in upstreams { await upstream.stop() }
            try? await group.shutdownGracefully()
        }
    }

    /// Runs `body` against a fresh server and stops it afterwards, also when `body` throws.
    static func withServer(
        upstreams count: Int = 1,
        cache: CacheSettings = CacheSettings(),
        access: AccessControl = AccessControl(),
        listeners: @escaping (SocketAddress) -> ListenerSettings = { ListenerSettings(addresses: [$0]) },
        forwarding: ForwardSettings = ForwardSettings(
            attemptTimeout: .milliseconds(300), attempts: 2, socketsPerFamily: 2, queriesPerPort: 16),
        _ body: (Running) async throws -> Void
    ) async throws {
        var upstreams: [ScriptedUpstream] = []
        for _ in 0..<count { upstreams.append(try await ScriptedUpstream()) }
        var builder = RuleSetBuilder()
        let source = builder.addSource("list.txt")
        _ = RuleListParser.parse(Array("ads.test\n".utf8), role: .block, source: source, into: &builder)
        let pipeline = QueryPipeline(
            policy: FilterPolicy(rules: builder.build()), access: access, cacheSettings: cache,
            cache: AnswerCache(settings: cache))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let server = try await DNSServer.start(
            listeners: listeners(try SocketAddress(ipAddress: "127.0.0.1", port: 0)),
            pipeline: pipeline,
            upstreams: UpstreamPool(
                servers: try upstreams.map { try SocketAddress(ipAddress: "127.0.0.1", port: $0.port) }),
            forwarding: forwarding,
            group: group)
        let running = Running(server: server, upstreams: upstreams, group: group)
        do {
            try await body(running)
        } catch {
            await running.stop()
            throw error
        }
        await running.stop()
    }

    @Test func forwardsAndThenAnswersFromCache() async throws {
        try await Self.withServer { running in
            for id in [1, 2, 3] as [UInt16] {
                let reply = try LdnsPacket(
                    wire: try DNSClient.udp(LdnsBuild.query("WWW.test.", id: id), port: running.port))
                #expect(reply.id == id)
                #expect(reply.answerRecords.first?.hasPrefix("WWW.test.\t") == true)
                #expect(reply.answerRecords.first?.hasSuffix("192.0.2.1") == true)
            }
            #expect(running.upstreams[0].queries(for: "www.test.") == 1)
            let overTCP = try DNSClient.tcp([LdnsBuild.query("www.test.", type: "AAAA")], port: running.port)
            #expect(try LdnsPacket(wire: overTCP[0]).answerRecords.first?.hasSuffix("2001:db8::1") == true)
            let nx = try LdnsPacket(wire: try DNSClient.udp(LdnsBuild.query("nothing.test."), port: running.port))
            #expect(nx.rcode == 3)
            _ = try DNSClient.udp(LdnsBuild.query("nothing.test."), port: running.port)
            #expect(running.upstreams[0].queries(for: "nothing.test.") == 1, "NXDOMAIN is cached")
            let blocked = try LdnsPacket(wire: try DNSClient.udp(LdnsBuild.query("ads.test."), port: running.port))
            #expect(blocked.answerRecords.first?.hasSuffix("0.0.0.0") == true)
            #expect(running.upstreams[0].queries(for: "ads.test.") == 0)
        }
    }

    @Test func truncatedUpstreamAnswersAreAskedAgainOverTCP() async throws {
        try await Self.withServer { running in
            let overUDP = try LdnsPacket(
                wire: try DNSClient.udp(LdnsBuild.query("big.test.", ednsPayload: 1232), port: running.port))
            #expect(overUDP.isTruncated)
            #expect(running.upstreams[0].tcpQueries == 1)
            let overTCP = try LdnsPacket(
                wire: try DNSClient.tcp([LdnsBuild.query("big.test.", ednsPayload: 1232)], port: running.port)[0])
            #expect(!overTCP.isTruncated)
            #expect(overTCP.answerCount == 100)
        }
    }

    @Test func oversizedUpstreamDatagramsAreTakenWholeOrAskedAgainOverTCP() async throws {
        try await Self.withServer { running in
            let loose = try LdnsPacket(wire: try DNSClient.tcp([LdnsBuild.query("loose.test.")], port: running.port)[0])
            #expect(loose.answerCount == 150)
            #expect(running.upstreams[0].tcpQueries == 0, "2.4 kB fit the datagram buffer")
            let huge = try LdnsPacket(wire: try DNSClient.tcp([LdnsBuild.query("huge.test.")], port: running.port)[0])
            #expect(huge.answerCount == 400)
            #expect(running.upstreams[0].tcpQueries == 1, "6.4 kB did not: asked again over TCP")
        }
    }

    @Test func servfailWithinAMomentWhileEveryUpstreamIsKnownDownAndAnswersOnceItIsBack() async throws {
        // The defaults: 3 attempts of 1 s, so one question makes three failures in a row, and a
        // question that waited them all out would take 3 s.
        try await Self.withServer(forwarding: ForwardSettings()) { running in
            running.upstreams[0].mode = .silent
            _ = try DNSClient.udp(LdnsBuild.query("a.test."), port: running.port, seconds: 5)
            let (reply, elapsed) = try DNSClient.timedQuery("www.test.", port: running.port)
            #expect(reply.rcode == 2)
            #expect(reply.extendedErrors.map(\.code) == [22])
            #expect(reply.extendedErrors.map(\.text) == ["every upstream is down"])
            #expect(elapsed < .milliseconds(1_500), "the 250 ms wait, not 3 attempts x 1 s")
            // The questions still go upstream: once it answers within the wait, lockr answers again.
            running.upstreams[0].mode = .answer
            var answer = reply
            for _ in 0..<20 where answer.rcode != 0 {
                try await Task.sleep(for: .milliseconds(100))
                answer = try LdnsPacket(wire: try DNSClient.udp(LdnsBuild.query("www.test."), port: running.port))
            }
            #expect(answer.rcode == 0, "answered again once the upstream is back")
            #expect(answer.answerRecords.count == 1)
        }
    }

    @Test func servfailWithinTheTimeoutWhenTheUpstreamIsDown() async throws {
        try await Self.withServer { running in
            running.upstreams[0].mode = .silent
            let (reply, elapsed) = try DNSClient.timedQuery("www.test.", port: running.port)
            #expect(reply.rcode == 2)
            #expect(reply.extendedErrors.map(\.code) == [22])
            #expect(elapsed < .milliseconds(1_500), "2 attempts x 300 ms")
            running.upstreams[0].mode = .serverFailure
            #expect(
                try LdnsPacket(wire: try DNSClient.udp(LdnsBuild.query("app.test."), port: running.port)).rcode == 2)
        }
    }

    @Test func servesStaleWhenTheUpstreamFails() async throws {
        try await Self.withServer(cache: CacheSettings(bounds: TTLBounds(maximum: 1), staleSeconds: 600)) { running in
            let fresh = try LdnsPacket(
                wire: try DNSClient.udp(LdnsBuild.query("www.test.", ednsPayload: 1232), port: running.port))
            #expect(fresh.answerRecords.first?.contains("\t1\tIN\tA") == true)
            try await Task.sleep(for: .milliseconds(1_100))
            running.upstreams[0].mode = .silent
            let stale = try LdnsPacket(
                wire: try DNSClient.udp(LdnsBuild.query("www.test.", ednsPayload: 1232), port: running.port, seconds: 3)
            )
            #expect(stale.rcode == 0)
            #expect(stale.answerRecords == ["www.test.\t30\tIN\tA\t192.0.2.1"])
            #expect(stale.extendedErrors.map(\.code) == [3])
        }
    }

    @Test func malformedPacketsDoNotStopTheServer() async throws {
        try await Self.withServer { running in
            #expect(throws: DNSClient.Timeout.self) { try DNSClient.udp([0x12], port: running.port, seconds: 0.3) }
            var twoQuestions = LdnsBuild.query("www.test.", id: 9)
            twoQuestions[5] = 2
            #expect(try LdnsPacket(wire: try DNSClient.udp(twoQuestions, port: running.port)).rcode == 1)
            let loop: [UInt8] = [0, 7, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 12, 0, 1, 0, 1]
            #expect(try LdnsPacket(wire: try DNSClient.udp(loop, port: running.port)).rcode == 1)
            var notify = LdnsBuild.query("www.test.")
            notify[2] = notify[2] & 0x87 | (4 << 3)
            #expect(try LdnsPacket(wire: try DNSClient.udp(notify, port: running.port)).rcode == 4)
            var generator = SplitMix64.forTest()
            for _ in 0..<300 {
                let junk = (0..<Int.random(in: 0...60, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
                _ = try? DNSClient.udp(junk, port: running.port, seconds: 0.01)
            }
            let good = try LdnsPacket(wire: try DNSClient.udp(LdnsBuild.query("www.test.", id: 77), port: running.port))
            #expect(good.id == 77)
            #expect(good.answerCount == 1)
        }
    }

    @Test func tcpPipeliningAndBadFrames() async throws {
        try await Self.withServer(listeners: {
            ListenerSettings(addresses: [$0], tcp: TCPSettings(maxConnections: 4, idleTimeout: .milliseconds(300)))
        }) { running in
            let answers = try DNSClient.tcp(
                [
                    LdnsBuild.query("www.test.", id: 1), LdnsBuild.query("ads.test.", id: 2),
                    LdnsBuild.query("app.test.", id: 3),
                ],
                port: running.port)
            #expect(Set(try answers.map { try LdnsPacket(wire: $0).id }) == [1, 2, 3])
            #expect(
                DNSClient.tcpClosesAfter(
                    [0xFF, 0xFF] + [UInt8](repeating: 0, count: 100), port: running.port, seconds: 2),
                "an oversized frame closes the connection")
            #expect(DNSClient.tcpClosesAfter([0, 0], port: running.port, seconds: 2), "a zero-length frame closes it")
            #expect(
                DNSClient.tcpClosesAfter([0, 40, 1, 2, 3], port: running.port, seconds: 2), "a stalled frame times out")
            #expect(DNSClient.tcpClosesAfter([], port: running.port, seconds: 2), "an idle connection times out")
            let after = try DNSClient.tcp([LdnsBuild.query("www.test.", id: 4)], port: running.port)
            #expect(try LdnsPacket(wire: after[0]).id == 4)
        }
    }

    @Test func aTricklingConnectionIsClosedWhenNoQueryCompletes() async throws {
        try await Self.withServer(listeners: {
            ListenerSettings(addresses: [$0], tcp: TCPSettings(maxConnections: 4, idleTimeout: .milliseconds(300)))
        }) { running in
            // A byte every 100 ms never completes the announced 40-byte query.
            let open = DNSClient.trickle(port: running.port, every: 0.1, seconds: 3)
            #expect(open != nil && open! < 1, "open for \(String(describing: open)) s")
            // A connection that keeps asking stays open past the timeout.
            for id in 1...5 as ClosedRange<UInt16> {
                let answers = try DNSClient.tcp([LdnsBuild.query("www.test.", id: id)], port: running.port)
                #expect(answers.count == 1)
            }
        }
    }

    @Test func refusedSourcesTakeNoTCPSlotAndNoSourceTakesThemAll() async throws {
        // Only 127.0.0.1 and 127.0.0.3 may ask; 127.0.0.2 is a stranger.
        let access = AccessControl(networks: ["127.0.0.1/32", "127.0.0.3/32"].compactMap(IPNetwork.init))
        try await Self.withServer(
            access: access,
            listeners: {
                ListenerSettings(addresses: [$0], tcp: TCPSettings(maxConnections: 8, idleTimeout: .seconds(5)))
            }
        ) { running in
            var held: [Int32] = []
            defer { for fd in held { close(fd) } }
            for _ in 0..<20 {
                if let fd = DNSClient.openTCP(port: running.port, from: "127.0.0.2") { held.append(fd) }
            }
            #expect(held.allSatisfy { DNSClient.isClosed($0, seconds: 1) }, "a refused source is closed at once")
            let answers = try DNSClient.tcp([LdnsBuild.query("www.test.", id: 7)], port: running.port)
            #expect(try LdnsPacket(wire: answers[0]).id == 7)
        }
    }

    /// Two sources that hold every slot with connections that never complete a query (as a probe
    /// did, trickling) leave a third client its answers: each of its connections takes the oldest
    /// idle one of the busiest source, and they cannot take it back from it.
    @Test func twoGreedySourcesCannotLockAThirdOutOfTCP() async throws {
        // An idle timeout far longer than the test: on a loaded machine a short one closed the
        // greedy connections before the counts were read.
        try await Self.withServer(listeners: {
            ListenerSettings(addresses: [$0], tcp: TCPSettings(maxConnections: 16, idleTimeout: .seconds(120)))
        }) { running in
            var greedy: [Int32] = []
            defer { for fd in greedy { close(fd) } }
            for source in ["127.0.0.3", "127.0.0.4"] {
                for _ in 0..<16 {
                    if let fd = DNSClient.openTCP(port: running.port, from: source) { greedy.append(fd) }
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            try await Self.untilTheServerCountsOpen(greedy, running.server)
            let kept = greedy.filter { !DNSClient.isClosedNow($0) }.count
            #expect(kept == 16, "every slot held: \(kept)")
            var answered = 0
            var third: [Int32] = []
            defer { for fd in third { close(fd) } }
            for id in 1...12 as ClosedRange<UInt16> {
                if let answers = try? DNSClient.tcp(
                    [LdnsBuild.query("www.test.", id: id)], port: running.port, from: "127.0.0.5"),
                    try LdnsPacket(wire: answers[0]).id == id
                {
                    answered += 1
                }
                // The third also keeps a connection open, which the greedy ones cannot take back.
                if id == 1, let fd = DNSClient.openTCP(port: running.port, from: "127.0.0.5") { third.append(fd) }
            }
            #expect(answered == 12, "the third client got \(answered) of 12 answers")
            // The server sees a closed query connection on its own event loop, maybe after the next
            // accept: wait until it counts just the connections still open, so no race frees a slot.
            try await Self.untilTheServerCountsOpen(greedy + third, running.server)
            for source in ["127.0.0.3", "127.0.0.4"] {
                for _ in 0..<4 {
                    if let fd = DNSClient.openTCP(port: running.port, from: source) { greedy.append(fd) }
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            try await Self.untilTheServerCountsOpen(greedy + third, running.server)
            #expect(third.allSatisfy { !DNSClient.isClosedNow($0) }, "the third keeps its own")
            let counts = running.server.tcpConnectionCounts
            #expect(counts.open == 16 && counts.evicted > 0 && counts.refused > 0, "\(counts)")
        }
    }

    /// Waits (5 s at most) until the server counts as many open connections as `clients` has
    /// that the server has not closed.
    private static func untilTheServerCountsOpen(_ clients: [Int32], _ server: DNSServer) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while server.tcpConnectionCounts.open != clients.filter({ !DNSClient.isClosedNow($0) }).count,
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func aBurstLargerThanOneReadIsAnsweredWhole() async throws {
        try await Self.withServer { running in
            // One socket's queries reach one loop, which reads 64 datagrams per wake-up.
            let burst = (1...150).map { LdnsBuild.query("ads.test.", id: UInt16($0)) }
            let answers = try DNSClient.udpBurst(burst, port: running.port, seconds: 3)
            #expect(Set(try answers.map { try LdnsPacket(wire: $0).id }) == Set(1...150))
        }
    }

    @Test func identicalQueriesInFlightAreAskedOnce() async throws {
        try await Self.withServer { running in
            running.upstreams[0].mode = .slow
            let burst = (1...8).map {
                LdnsBuild.query($0.isMultiple(of: 2) ? "APP.test." : "app.test.", id: UInt16($0))
            }
            let answers = try DNSClient.udpBurst(burst, port: running.port, seconds: 3)
            #expect(Set(try answers.map { try LdnsPacket(wire: $0).id }) == Set(1...8))
            #expect(
                try answers.allSatisfy { try LdnsPacket(wire: $0).answerRecords.first?.hasSuffix("192.0.2.6") == true })
            #expect(running.upstreams[0].queries(for: "app.test.") == 1)
        }
    }

    @Test func queriesLeaveFromChangingRandomPorts() async throws {
        try await Self.withServer { running in
            for index in 0..<400 {
                _ = try DNSClient.udp(LdnsBuild.query("n\(index).test.", id: UInt16(index)), port: running.port)
            }
            let ports = running.upstreams[0].sourcePorts
            // 2 sockets per event loop at first, each replaced after 16 queries: about 25 ports
            #expect(ports.count > 12)
            #expect(!ports.contains(running.port))
        }
    }

    @Test func aDeadUpstreamStopsBeingTriedFirst() async throws {
        try await Self.withServer(upstreams: 2) { running in
            running.upstreams[0].mode = .silent
            _ = try DNSClient.udp(LdnsBuild.query("www.test."), port: running.port, seconds: 3)
            let before = running.upstreams[0].queries(for: "app.test.")
            let started = ContinuousClock.now
            let reply = try LdnsPacket(
                wire: try DNSClient.udp(LdnsBuild.query("app.test."), port: running.port, seconds: 3))
            #expect(reply.answerCount == 1)
            #expect(ContinuousClock.now - started < .milliseconds(250), "answered by the healthy upstream at once")
            #expect(running.upstreams[0].queries(for: "app.test.") == before)
        }
    }
}

/// An upstream outage under load: clients keep asking for names whose cached answers have expired,
/// and for names that need no upstream at all.
@Suite struct UpstreamOutageTests {
    @Test func staleAnswersComeAtOnceOnceTheUpstreamsAreKnownDownAndNothingIsLost() async throws {
        let names = (0..<100).map { "s\($0).test." }
        var records = ScriptedUpstream.defaultRecords
        for (index, name) in names.enumerated() { records[name] = ["\(name) 300 IN A 192.0.2.\(index + 1)"] }
        let upstream = try await ScriptedUpstream(records: records)
        var builder = RuleSetBuilder()
        _ = RuleListParser.parse(
            Array("ads.test\n".utf8), role: .block, source: builder.addSource("list"), into: &builder)
        // Answers live one second in the cache, then stay for serve-stale.
        let cache = CacheSettings(bounds: TTLBounds(maximum: 1), staleSeconds: 600)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await DNSServer.start(
            listeners: ListenerSettings(addresses: [try SocketAddress(ipAddress: "127.0.0.1", port: 0)]),
            pipeline: QueryPipeline(
                policy: FilterPolicy(rules: builder.build()), cacheSettings: cache, cache: AnswerCache(settings: cache)),
            upstreams: UpstreamPool(servers: [try SocketAddress(ipAddress: "127.0.0.1", port: upstream.port)]),
            forwarding: ForwardSettings(),  // 3 attempts of 1 s, stale answers after 1.8 s
            group: group)
        let port = server.boundAddresses[0].port!
        for name in names { _ = try DNSClient.udp(LdnsBuild.query(name), port: port) }
        try await Task.sleep(for: .milliseconds(1_200))  // every cached answer has expired
        upstream.mode = .silent

        // 4 s at 1500 queries a second: four in five for an expired name, one for a blocked name.
        let queries = (0..<6_000).map { index in
            LdnsBuild.query(index % 5 == 4 ? "x.ads.test." : names[index % names.count], id: UInt16(index))
        }
        let latencies = LoadClient.run(queries, port: port, rate: 1500, grace: 2.5)
        await server.close()
        await upstream.stop()
        try await group.shutdownGracefully()

        let lost = latencies.filter { $0 == nil }.count
        #expect(lost == 0, "\(lost) of \(queries.count) queries got no answer")
        let stale = latencies.enumerated().filter { $0.offset % 5 != 4 }.compactMap(\.element)
        // No client waits the 3 s of all attempts: at most the 1.8 s client-response timer...
        #expect((stale.max() ?? 9) < 2.3, "slowest stale answer \(stale.max() ?? -1) s")
        // ...and once the upstream has failed 3 times (after its 1 s timeout), stale answers go at once.
        let late = latencies.enumerated().filter { $0.offset % 5 != 4 && $0.offset >= 3000 }.compactMap(\.element)
        let slowLate = late.filter { $0 > 0.5 }.count
        #expect(slowLate <= late.count / 100, "\(slowLate) of \(late.count) late stale answers took over 0.5 s")
        let blocked = latencies.enumerated().filter { $0.offset % 5 == 4 }.compactMap(\.element)
        #expect((blocked.max() ?? 9) < 1, "names that need no upstream are answered at once")
    }
}

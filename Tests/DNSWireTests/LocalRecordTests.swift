import DNSWire
import Testing

/// The home's own records as written in the config file and in hosts files, read by ldns.
@Suite struct LocalRecordTests {
    func wire(_ name: String) -> [UInt8] { WireName.wire(fromPresentation: name)! }

    @Test func eachTypeIsReadWithItsDataInWireForm() throws {
        let a = try LocalRecord("NAS.home.arpa A 192.168.1.5")
        #expect(a == LocalRecord(owner: wire("nas.home.arpa"), type: RecordType.a, ttl: nil, rdata: [192, 168, 1, 5]))
        let aaaa = try LocalRecord("nas.home.arpa. 60 AAAA fd00::5")
        #expect(aaaa.ttl == 60 && aaaa.rdata == [0xfd] + Array(repeating: 0, count: 14) + [5])
        #expect(try LocalRecord("printer.lan cname NAS.home.arpa").rdata == wire("nas.home.arpa"))
        #expect(try LocalRecord("5.1.168.192.in-addr.arpa PTR nas.home.arpa.").rdata == wire("nas.home.arpa"))
        #expect(try LocalRecord("home.arpa TXT \"hello world\"").rdata == [11] + Array("hello world".utf8))
    }

    @Test(arguments: [
        ("nas.lan", "expected NAME TYPE DATA, as \"nas.lan A 192.168.1.5\""),
        ("nas.lan MX 10 mail.lan", "type 'MX' is not one of A, AAAA, CNAME, PTR, TXT"),
        ("nas.lan A 192.168.1", "'nas.lan A 192.168.1' is not a record: "),
        ("nas.lan AAAA 192.168.1.5", "'nas.lan AAAA 192.168.1.5' is not a record: "),
        ("nas.lan A 1.2.3.4 ; comment", "one record per entry, without ';' comments or '$' directives"),
    ])
    func aBadRecordSaysWhatIsWrong(text: String, said: String) {
        #expect {
            _ = try LocalRecord(text)
        } throws: { error in
            (error as? LocalRecordError)?.description.hasPrefix(said) == true
        }
    }

    @Test func aHostsFileGivesEachNameItsAddressAndTheAddressItsFirstName() {
        let read = HostsFile.records(
            in: """
                # the home
                192.168.1.5   nas.lan nas   # the NAS
                fd00::5\tnas.lan

                10.0.0.1
                300.1.1.1 bad.lan
                """)
        #expect(read.records.count == 5)
        #expect(
            read.records.contains(
                LocalRecord(owner: wire("nas"), type: RecordType.a, ttl: nil, rdata: [192, 168, 1, 5])))
        #expect(
            read.records.contains(
                LocalRecord(
                    owner: wire("5.1.168.192.in-addr.arpa"), type: RecordType.ptr, ttl: nil, rdata: wire("nas.lan"))))
        let v6Reverse = String(repeating: "0.", count: 29)
        #expect(read.records.contains { $0.owner == wire("5.\(v6Reverse)d.f.ip6.arpa") && $0.type == RecordType.ptr })
        #expect(
            read.problems.map { "\($0.line) \($0.message)" } == [
                "5 '10.0.0.1' names no host", "6 '300.1.1.1' is not an IPv4 or IPv6 address",
            ])
    }
}

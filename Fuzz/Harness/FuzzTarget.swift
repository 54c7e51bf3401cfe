/// The parsers of outside bytes, each a libFuzzer target: `LOCKR_FUZZ_TARGET` picks one.
enum FuzzTarget: String, CaseIterable {
    /// A query as a client sends it, then lockr's answers to it.
    case dnsQuery = "dns-query"
    /// The EDNS options of a query (MAC, client subnet, padding, ...): the input is the OPT record's data.
    case ednsOptions = "edns-options"
    /// An upstream's answer to a query lockr sent.
    case upstreamAnswer = "upstream-answer"
    /// A DNS-over-HTTPS request: the first byte picks GET or POST and the content type, then the
    /// target (path and query) up to a newline, then the body.
    case dohRequest = "doh-request"
    /// A secondary's request on the zone-transfer port (SOA, AXFR, IXFR), or its answer to a NOTIFY.
    case zoneRequest = "zone-request"
    /// A resolver's dnstap connection: Frame Streams (control frames, data frames), each data
    /// frame read as a dnstap message.
    case dnstapStream = "dnstap-stream"
    /// An upstream as the config writes it (`tls://...`, `https://...`, an address).
    case upstream
    /// A block or allow list (hosts, plain, adblock), then names matched against it.
    case ruleList = "rule-list"
    /// The TOML configuration file.
    case config
    /// The home's own names: a `[local]` record (the first line) and a hosts file (the rest),
    /// then queries answered from them.
    case localRecords = "local-records"
    /// A list server's answer: its status, head and body (see `ListTargets.listDownload`).
    case listDownload = "list-download"
    /// A control API request body: the first byte picks the body, the rest is its JSON.
    case controlBody = "control-body"
    /// A web page's form: the first byte picks the form, the rest is its URL-encoded text.
    case webForm = "web-form"
    /// A time zone file (TZif) from the system's database, then wall clocks and day starts in it.
    case tzif
    /// A recorded clip (WAV).
    case wav
    /// Chess: a position (FEN) or a typed move (SAN or UCI); the first byte picks which.
    case chess

    /// Runs the target's parser on `bytes`; a crash, a trap or a leak is the finding.
    func run(_ bytes: [UInt8]) {
        switch self {
        case .dnsQuery: WireTargets.query(bytes)
        case .ednsOptions: WireTargets.ednsOptions(bytes)
        case .upstreamAnswer: WireTargets.upstreamAnswer(bytes)
        case .dohRequest: WireTargets.dohRequest(bytes)
        case .zoneRequest: WireTargets.zoneRequest(bytes)
        case .dnstapStream: WireTargets.dnstapStream(bytes)
        case .upstream: WireTargets.upstream(bytes)
        case .ruleList: ListTargets.ruleList(bytes)
        case .config: ListTargets.config(bytes)
        case .localRecords: ListTargets.localRecords(bytes)
        case .listDownload: ListTargets.listDownload(bytes)
        case .controlBody: RequestTargets.controlBody(bytes)
        case .webForm: RequestTargets.webForm(bytes)
        case .tzif: ListTargets.tzif(bytes)
        case .wav: PuzzleTargets.wav(bytes)
        case .chess: PuzzleTargets.chess(bytes)
        }
    }
}

/// The reader's side of one Frame Streams connection: which control frames it answers, when data
/// may come, and when the connection is done.
public struct FrameStreamSession: Sendable {
    /// The content type of dnstap's protobuf messages.
    public static let dnstapContentType = "protobuf:dnstap.Dnstap"

    private enum Phase { case opening, started, finished }
    private var phase = Phase.opening
    /// Whether the writer opened with READY and so waits for ACCEPT and FINISH.
    private var bidirectional = false

    /// What to do after a control frame.
    public struct Step: Equatable, Sendable {
        /// The control frame to send back, if any.
        public var reply: FrameStreamControl?
        /// Whether the writer is done: close the connection once the reply is out.
        public var close: Bool
    }

    public init() {}

    /// Whether data frames are read now (between START and STOP).
    public var started: Bool { phase == .started }

    /// Takes a control frame from the writer.
    public mutating func receive(_ control: FrameStreamControl) throws(FrameStreamError) -> Step {
        let dnstap = [Self.dnstapContentType]
        switch (phase, control.kind) {
        case (.opening, .ready) where !bidirectional:
            guard control.contentTypes.isEmpty || control.contentTypes.contains(Self.dnstapContentType) else {
                throw .notDnstap(control.contentTypes)
            }
            bidirectional = true
            return Step(reply: FrameStreamControl(.accept, contentTypes: dnstap), close: false)
        case (.opening, .start):
            guard control.contentTypes.allSatisfy({ $0 == Self.dnstapContentType }) else {
                throw .notDnstap(control.contentTypes)
            }
            phase = .started
            return Step(reply: nil, close: false)
        case (.started, .stop):
            phase = .finished
            return Step(reply: bidirectional ? FrameStreamControl(.finish) : nil, close: true)
        default:
            throw .outOfOrder("\(control.kind) while \(phase)")
        }
    }

    /// Checks that a data frame may come now.
    public func receiveData() throws(FrameStreamError) {
        guard phase == .started else { throw .outOfOrder("data while \(phase)") }
    }
}

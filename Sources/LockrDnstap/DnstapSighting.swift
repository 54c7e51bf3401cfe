import DNSWire
import Foundation
import NIOCore
import SwiftProtobuf

/// What lockr takes from one dnstap message: a client of a resolver asked for a name.
public struct DnstapSighting: Sendable, Equatable {
    /// Which of the messages that tell of a client's question it came from.
    public enum Kind: Sendable, Equatable {
        /// CLIENT_QUERY: the resolver logs the question as it arrives.
        case query
        /// CLIENT_RESPONSE: the resolver logs its answer (with the question in it).
        case response
    }

    public let kind: Kind
    /// The client's address, 4 or 16 bytes.
    public let client: [UInt8]
    /// The question's name in wire format, as the client wrote it.
    public let wireName: [UInt8]
    /// When the resolver got the query, by its clock; nil when the message does not say.
    public let at: Date?

    public init(kind: Kind, client: [UInt8], wireName: [UInt8], at: Date?) {
        self.kind = kind
        self.client = client
        self.wireName = wireName
        self.at = at
    }

    /// Reads a dnstap data frame. `nil` for a well-formed message that tells of no client's
    /// question (a resolver's own queries upstream, an update); throws for bytes that are no dnstap
    /// message or a client message without a client address or question.
    public static func read(_ frame: ByteBuffer) throws(DnstapProblem) -> DnstapSighting? {
        let envelope: Dnstap_Dnstap
        do {
            envelope = try Dnstap_Dnstap(serializedBytes: Array(frame.readableBytesView))
        } catch {
            throw .notProtobuf("\(error)")
        }
        guard envelope.type == .message, envelope.hasMessage else { return nil }
        let message = envelope.message
        let kind: Kind
        let packet: Data
        switch message.type {
        case .clientQuery:
            kind = .query
            packet = message.hasQueryMessage ? message.queryMessage : message.responseMessage
        case .clientResponse:
            kind = .response
            packet = message.hasResponseMessage ? message.responseMessage : message.queryMessage
        default: return nil
        }
        let client = [UInt8](message.queryAddress)
        guard client.count == 4 || client.count == 16 else { throw .noClientAddress(client.count) }
        guard let wireName = questionName(of: [UInt8](packet)) else { throw .noQuestion }
        let at =
            message.hasQueryTimeSec
            ? Date(
                timeIntervalSince1970: Double(message.queryTimeSec) + Double(message.queryTimeNsec) / 1e9)
            : nil
        return DnstapSighting(kind: kind, client: client, wireName: wireName, at: at)
    }

    /// The first question's name of a DNS message, in wire format; nil when it has none.
    static func questionName(of packet: [UInt8]) -> [UInt8]? {
        guard packet.count >= DNSLimits.headerSize, packet[4] != 0 || packet[5] != 0,
            let end = WireName.uncompressedEnd(in: packet, from: DNSLimits.headerSize)
        else { return nil }
        return Array(packet[DNSLimits.headerSize..<end])
    }
}

/// Why a dnstap data frame was not taken.
public enum DnstapProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case notProtobuf(String)
    case noClientAddress(Int)
    case noQuestion

    public var description: String {
        switch self {
        case .notProtobuf(let why): "not a dnstap message (\(why))"
        case .noClientAddress(let count): "a client message whose address has \(count) bytes"
        case .noQuestion: "a client message without a question"
        }
    }
}

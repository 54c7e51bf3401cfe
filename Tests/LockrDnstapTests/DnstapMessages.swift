import Foundation
import NIOCore
import SwiftProtobuf

@testable import LockrDnstap

/// dnstap messages as resolvers write them, for the tests.
enum DnstapMessages {
    /// A query for `name` (type A) in wire format.
    static func query(_ name: String, id: UInt16 = 1, response: Bool = false) -> [UInt8] {
        var packet: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), response ? 0x81 : 0x01, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        for label in name.split(separator: ".") {
            packet.append(UInt8(label.utf8.count))
            packet += Array(label.utf8)
        }
        packet += [0, 0, 1, 0, 1]
        return packet
    }

    /// One dnstap message of `type` from `client` asking `name`, serialized.
    static func frame(
        _ type: Dnstap_Message.TypeEnum = .clientQuery, client: [UInt8] = [192, 168, 1, 20],
        name: String = "tiktok.com",
        at seconds: UInt64? = 1_800_000_000, includeQuery: Bool = true, includeResponse: Bool = false
    ) -> ByteBuffer {
        var message = Dnstap_Message()
        message.type = type
        message.socketFamily = client.count == 4 ? .inet : .inet6
        message.socketProtocol = .udp
        if !client.isEmpty { message.queryAddress = Data(client) }
        message.queryPort = 53_000
        if let seconds {
            message.queryTimeSec = seconds
            message.queryTimeNsec = 500_000_000
        }
        if includeQuery { message.queryMessage = Data(query(name)) }
        if includeResponse { message.responseMessage = Data(query(name, response: true)) }
        var envelope = Dnstap_Dnstap()
        envelope.type = .message
        envelope.identity = Data("resolver-1".utf8)
        envelope.message = message
        return ByteBuffer(bytes: try! envelope.serializedBytes() as [UInt8])
    }

    /// A whole stream as a writer sends it: READY (when bidirectional), START, the frames, STOP.
    static func stream(_ frames: [ByteBuffer], bidirectional: Bool) -> ByteBuffer {
        var buffer = ByteBuffer()
        let types = [FrameStreamSession.dnstapContentType]
        if bidirectional { FrameStreamControl(.ready, contentTypes: types).write(into: &buffer) }
        FrameStreamControl(.start, contentTypes: types).write(into: &buffer)
        for frame in frames { FrameStreamFrame.data(frame).write(into: &buffer) }
        FrameStreamControl(.stop).write(into: &buffer)
        return buffer
    }
}

import Foundation
import NIOCore
import Testing

@testable import LockrDnstap

/// What lockr takes from each kind of dnstap message.
struct DnstapSightingTests {
    let tiktok: [UInt8] = [6] + Array("tiktok".utf8) + [3] + Array("com".utf8) + [0]

    @Test func aClientQueryGivesItsClientNameAndTime() throws {
        let sighting = try #require(try DnstapSighting.read(DnstapMessages.frame()))
        #expect(
            sighting
                == DnstapSighting(
                    kind: .query, client: [192, 168, 1, 20], wireName: tiktok,
                    at: Date(timeIntervalSince1970: 1_800_000_000.5)))
        let v6 = Array(repeating: UInt8(0), count: 15) + [1]
        #expect(try DnstapSighting.read(DnstapMessages.frame(client: v6, at: nil))?.client == v6)
        #expect(try DnstapSighting.read(DnstapMessages.frame(at: nil))?.at == nil)
    }

    @Test func aClientResponseGivesTheQuestionInItsAnswer() throws {
        let frame = DnstapMessages.frame(.clientResponse, includeQuery: false, includeResponse: true)
        let sighting = try #require(try DnstapSighting.read(frame))
        #expect(sighting.kind == .response)
        #expect(sighting.wireName == tiktok)
    }

    @Test func aResolversOwnTrafficTellsOfNoClient() throws {
        for type in [
            Dnstap_Message.TypeEnum.resolverQuery, .resolverResponse, .forwarderQuery, .authQuery, .updateQuery,
        ] {
            #expect(try DnstapSighting.read(DnstapMessages.frame(type)) == nil, "\(type)")
        }
    }

    @Test func bytesThatAreNoClientMessageAreRefusedWithTheirReason() {
        #expect(throws: DnstapProblem.noClientAddress(0)) { try DnstapSighting.read(DnstapMessages.frame(client: [])) }
        #expect(throws: DnstapProblem.noQuestion) {
            try DnstapSighting.read(DnstapMessages.frame(includeQuery: false))
        }
        #expect {
            try DnstapSighting.read(ByteBuffer(bytes: [0xFF, 0xFF, 0xFF, 0x01]))
        } throws: { error in
            guard case .notProtobuf = error as? DnstapProblem else { return false }
            return true
        }
        // A message without its required type.
        var envelope = Dnstap_Dnstap()
        envelope.identity = Data("x".utf8)
        let partial = try! envelope.serializedBytes(partial: true) as [UInt8]
        #expect(throws: (any Error).self) { try DnstapSighting.read(ByteBuffer(bytes: partial)) }
    }
}

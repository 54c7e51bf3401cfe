import Crypto
import DNSWire
import ExtrasBase64

/// The TSIG key lockr and its secondaries share (RFC 8945): its name and secret; HMAC-SHA256.
public struct TSIGKey: Sendable {
    /// The key's name, lower-cased wire form.
    public let name: [UInt8]
    fileprivate let secret: SymmetricKey

    /// The one algorithm lockr signs and verifies with.
    public static let algorithm = WireName.wire(fromPresentation: "hmac-sha256")!

    /// A key named `name` ("lockr-rpz") with the base64 `secret` (as `tsig-keygen` writes it); nil
    /// when the name is not a domain name or the secret is not base64 of at least 16 bytes.
    public init?(name: String, secret: String) {
        guard let wire = WireName.wire(fromPresentation: name.lowercased()), wire.count > 1,
            let bytes = try? Base64.decode(string: String(secret.filter { !$0.isWhitespace })),
            bytes.count >= 16
        else { return nil }
        self.name = wire
        self.secret = SymmetricKey(data: bytes)
    }

    fileprivate func mac(_ input: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: input, using: secret))
    }
}

/// How requests on the zone port are signed: with `key`, signed requests are verified and answers
/// to them signed; `required` refuses unsigned ones (off for resolvers that cannot sign, such as
/// unbound).
public struct ZoneSigning: Sendable {
    public let key: TSIGKey?
    public let required: Bool

    public init(key: TSIGKey?, required: Bool) {
        self.key = key
        self.required = required && key != nil
    }

    public static let none = ZoneSigning(key: nil, required: false)
}

/// TSIG's error codes (RFC 8945 section 3).
enum TSIGError: UInt16 {
    case badSignature = 16
    case badKey = 17
    case badTime = 18
}

/// Signs the messages of one answer in order: the first after the request's MAC, each later one
/// after the MAC before it with the timers alone (RFC 8945 section 5.3.1).
struct TSIGSigner {
    let key: TSIGKey
    let now: UInt64
    private var prior: [UInt8]
    private var first = true

    init(key: TSIGKey, requestMAC: [UInt8], now: UInt64) {
        self.key = key
        self.now = now
        prior = requestMAC
    }

    mutating func sign(_ message: [UInt8], error: TSIGError? = nil, timeSigned: UInt64? = nil) -> [UInt8] {
        var otherData: [UInt8] = []
        if error == .badTime {
            // The server's time, for the client to see by how much they differ.
            otherData =
                [UInt8(truncatingIfNeeded: now >> 40), UInt8(truncatingIfNeeded: now >> 32)]
                + withUnsafeBytes(of: UInt32(truncatingIfNeeded: now).bigEndian, Array.init)
        }
        var record = TSIGRecord(
            keyName: key.name, algorithm: TSIGKey.algorithm, timeSigned: timeSigned ?? now, fudge: 300, mac: [],
            originalID: UInt16(message[0]) << 8 | UInt16(message[1]), error: error?.rawValue ?? 0,
            otherData: otherData)
        var input: [UInt8] = [UInt8(prior.count >> 8), UInt8(truncatingIfNeeded: prior.count)] + prior + message
        input += record.variables(timersOnly: !first)
        let mac = key.mac(input)
        record = TSIGRecord(
            keyName: record.keyName, algorithm: record.algorithm, timeSigned: record.timeSigned, fudge: record.fudge,
            mac: mac, originalID: record.originalID, error: record.error, otherData: record.otherData)
        prior = mac
        first = false
        var signed = message
        record.append(to: &signed)
        return signed
    }
}

/// What a request's signature allows.
enum SignatureCheck {
    /// Unsigned, and that is allowed: answer as it is.
    case unsigned
    /// Signed with the key and in time: answer the request without its signature, and sign.
    case signed(request: [UInt8], signer: TSIGSigner)
    /// Refused: the answer that says why.
    case refused([UInt8])
    /// Not a message whose records can be walked.
    case malformed
}

extension ZoneSigning {
    /// Checks `packet`'s signature at `now` (seconds since the epoch).
    func check(_ packet: [UInt8], now: UInt64) -> SignatureCheck {
        let tsig: TSIGRecord?
        do { tsig = try TSIGRecord.find(in: packet) } catch { return .malformed }
        guard let tsig else {
            guard required else { return .unsigned }
            guard let request = try? ZoneMessage(packet: packet) else { return .malformed }
            return .refused(ZoneMessages.answer(request, rcode: .refused))
        }
        let unsigned = tsig.unsigned(packet)
        guard let request = try? ZoneMessage(packet: unsigned) else { return .malformed }
        // A key or a signature lockr cannot check: NOTAUTH, the TSIG carrying the error and no MAC.
        func unverified(_ error: TSIGError) -> SignatureCheck {
            var answer = ZoneMessages.answer(request, rcode: .notAuthorized)
            TSIGRecord(
                keyName: tsig.keyName, algorithm: tsig.algorithm, timeSigned: tsig.timeSigned, fudge: tsig.fudge,
                mac: [], originalID: tsig.originalID, error: error.rawValue, otherData: []
            ).append(to: &answer)
            return .refused(answer)
        }
        guard let key, tsig.keyName == key.name, tsig.algorithm == TSIGKey.algorithm else {
            return unverified(.badKey)
        }
        let expected = key.mac(unsigned + tsig.variables())
        guard tsig.mac.count == expected.count, zip(tsig.mac, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else {
            return unverified(.badSignature)
        }
        var signer = TSIGSigner(key: key, requestMAC: tsig.mac, now: now)
        let skew = now > tsig.timeSigned ? now - tsig.timeSigned : tsig.timeSigned - now
        guard skew <= UInt64(tsig.fudge) else {
            return .refused(
                signer.sign(
                    ZoneMessages.answer(request, rcode: .notAuthorized), error: .badTime, timeSigned: tsig.timeSigned))
        }
        return .signed(request: unsigned, signer: signer)
    }
}

import AsyncHTTPClient
import DNSFilter
import Foundation
import NIOCore
import NIOHTTP1

/// Fetches lists over HTTP: asks only for a newer copy than the one kept (`If-None-Match`,
/// `If-Modified-Since`), takes gzip and deflate, follows at most 5 redirects but never from HTTPS
/// to HTTP (a list's rules are only as trustworthy as the way they came), checks TLS as
/// AsyncHTTPClient does, and stops at the size and time limits.
struct ListFetcher: Sendable {

    /// The client lists are fetched with, its own (a list may be large and slow; nothing else waits
    /// on it), on the list thread (`ListWork`). Decompressed bodies are limited by
    /// `ListSettings.maximumBytes` as they are read.
    static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.decompression = .enabled(limit: .ratio(200))
        configuration.redirectConfiguration = .disallow
        configuration.timeout.connect = .seconds(15)
        configuration.timeout.read = .seconds(60)
        return HTTPClient(eventLoopGroup: ListWork.group, configuration: configuration)
    }

    let client: HTTPClient
    let settings: ListSettings

    /// The most redirects followed.
    static let redirects = 5

    /// Fetches `url`; `known` is what was recorded of the copy kept, if any.
    func fetch(_ url: String, known: ListRecord?) async throws(ListFetchProblem) -> Fetched {
        var url = url
        for _ in 0...Self.redirects {
            switch try await fetchOnce(url, known: known) {
            case .answer(let fetched): return fetched
            case .redirect(let target): url = target
            }
        }
        throw .refused("more than \(Self.redirects) redirects")
    }

    private enum Step {
        case answer(Fetched)
        case redirect(String)
    }

    private func fetchOnce(_ url: String, known: ListRecord?) async throws(ListFetchProblem) -> Step {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: "lockr")
        if let etag = known?.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = known?.lastModified {
            request.headers.add(name: "If-Modified-Since", value: lastModified)
        }
        let limit = settings.maximumBytes
        let deadline = NIODeadline.now() + .nanoseconds(Int64(settings.timeout.components.seconds) * 1_000_000_000)
        do {
            // The deadline covers the head; the body is read under the same limit below.
            let response = try await client.execute(request, deadline: deadline)
            let head = Array(response.headers.map { ($0.name, $0.value) })
            if let target = try ListAnswer.redirect(status: Int(response.status.code), headers: head, from: url) {
                return .redirect(target)
            }
            if let answer = try ListAnswer.head(
                status: Int(response.status.code), reason: response.status.reasonPhrase, headers: head, limit: limit)
            {
                return .answer(answer)
            }
            let body = try await Self.collect(response.body, upTo: limit, before: deadline)
            // Its rules counted on the list thread, as they are built there.
            return .answer(try await ListWork.run { try ListAnswer.list(body, headers: head) })
        } catch let problem as ListFetchProblem {
            throw problem
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw .unreachable("no answer within \(settings.timeout.components.seconds) s")
        } catch let error as NIOTooManyBytesError {
            _ = error
            throw .tooLarge(limit)
        } catch let error as HTTPClientError where error == .remoteConnectionClosed {
            throw .unreachable("the connection closed before the whole list came")
        } catch {
            throw .unreachable(Self.describe(error))
        }
    }

    /// The body's bytes, at most `limit` of them, all read before `deadline`.
    private static func collect(
        _ body: HTTPClientResponse.Body, upTo limit: Int, before deadline: NIODeadline
    ) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in body {
            guard bytes.count + chunk.readableBytes <= limit else { throw ListFetchProblem.tooLarge(limit) }
            bytes += chunk.readableBytesView
            guard NIODeadline.now() < deadline else { throw HTTPClientError.deadlineExceeded }
        }
        return bytes
    }

    /// A transport error in a few words, without a URL's query.
    private static func describe(_ error: any Error) -> String {
        let text = "\(error)".replacing(/\?[^\s"')]*/, with: "?...")
        let says = { (words: String) in text.firstRange(of: words) != nil }
        if says("connectionRefused") || says("Connection refused") { return "connection refused" }
        if says("connectTimeout") { return "connect timeout" }
        if says("remoteConnectionClosed") || says("unexpected time") || says("invalidEOFState") {
            return "the connection closed before the whole list came"
        }
        return text.count > 160 ? String(text.prefix(160)) + "..." : text
    }
}

/// What a fetch brought.
enum Fetched: Sendable, Equatable {
    /// The server says the copy kept is current.
    case unchanged
    /// A list, its rules counted, with the validators to send back next time.
    case fetched([UInt8], rules: Int, etag: String?, lastModified: String?)
}

/// A list server's answer taken apart: whether it is a list lockr keeps. Apart from the fetching,
/// so that it can be fuzzed (Fuzz/Harness).
enum ListAnswer {
    /// The longest validator kept; a longer one is not sent back.
    static let longestValidator = 1024

    /// Where a redirect from `url` leads, nil for an answer that is none; a redirect from HTTPS to
    /// HTTP, or to anything but HTTP(S), is refused.
    static func redirect(status: Int, headers: [(String, String)], from url: String) throws(ListFetchProblem) -> String?
    {
        guard [301, 302, 303, 307, 308].contains(status) else { return nil }
        guard let location = value("Location", in: headers), let base = URL(string: url),
            let target = URL(string: location, relativeTo: base)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), ["http", "https"].contains(scheme), target.host != nil
        else { throw .refused("HTTP \(status) redirects to no URL lockr can fetch") }
        if base.scheme?.lowercased() == "https", scheme == "http" {
            throw .refused("HTTP \(status) redirects from HTTPS to HTTP (\(target.host ?? "")); not followed")
        }
        return target.absoluteString
    }

    /// The answer's head: `.unchanged` for 304 Not Modified, nil for 200 (the body follows, at most
    /// `limit` bytes as it says), anything else refused.
    static func head(
        status: Int, reason: String, headers: [(String, String)], limit: Int
    ) throws(ListFetchProblem) -> Fetched? {
        switch status {
        case 304: return .unchanged
        case 200:
            if let length = value("Content-Length", in: headers).flatMap(Int.init), length > limit {
                throw .tooLarge(limit)
            }
            return nil
        default:
            // The reason as far as it is plain words (it is the server's text, shown in the log).
            let words = reason.prefix(60).prefix { $0.isLetter || $0.isNumber || $0 == " " }
            throw .refused("HTTP \(status)" + (words.isEmpty ? "" : " \(words)"))
        }
    }

    /// A 200's body: a list once it holds rules (an empty body or an error page is refused).
    static func list(_ bytes: [UInt8], headers: [(String, String)]) throws(ListFetchProblem) -> Fetched {
        guard !bytes.isEmpty else { throw .refused("the list came empty") }
        var builder = RuleSetBuilder()
        let report = RuleListParser.parse(bytes, role: .block, source: builder.addSource("download"), into: &builder)
        guard report.rules > 0 else { throw .refused("no rules in what came (\(bytes.count) bytes; not a list?)") }
        return .fetched(
            bytes, rules: report.rules, etag: validator("ETag", in: headers),
            lastModified: validator("Last-Modified", in: headers))
    }

    private static func value(_ name: String, in headers: [(String, String)]) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// A validator worth sending back: short, and printable ASCII as HTTP asks.
    private static func validator(_ name: String, in headers: [(String, String)]) -> String? {
        guard let text = value(name, in: headers), !text.isEmpty, text.utf8.count <= longestValidator,
            text.utf8.allSatisfy({ (0x20...0x7E).contains($0) })
        else { return nil }
        return text
    }
}

/// Why a list could not be fetched.
enum ListFetchProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer, a broken connection, a TLS failure.
    case unreachable(String)
    /// An answer other than the list.
    case refused(String)
    case tooLarge(Int)

    var description: String {
        switch self {
        case .unreachable(let why), .refused(let why): why
        case .tooLarge(let limit): "larger than lists.max-size (\(limit >> 20) MB)"
        }
    }
}

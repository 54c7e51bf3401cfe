import Foundation

/// A script of Tests/Scripts that serves on a free loopback port: it prints the port first, logs
/// to stderr, and stops when its stdin closes (when this is released).
public final class ScriptServer: @unchecked Sendable {
    public let port: Int
    private let process = Process()
    private let input = Pipe()
    private let log = NSTemporaryDirectory() + "lockr-script-server-\(UUID().uuidString).log"

    /// Runs `Tests/Scripts/<script>` with `arguments` and waits for its port.
    public init(_ script: String, _ arguments: [String] = []) throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/" + script).path
        let output = Pipe()
        FileManager.default.createFile(atPath: log, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", path] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 10 {
            line.append(first)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(script) gave no port"])
        }
        self.port = port
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: log)
    }

    /// What it logged, line by line, oldest first.
    public var logLines: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}

/// Tests/Scripts/list_server.py on a free loopback port, for one test: the lists it serves and
/// the requests it saw.
public final class ListServer: Sendable {
    private let server: ScriptServer

    public init() throws { server = try ScriptServer("list_server.py") }

    public var port: Int { server.port }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Asks the server to change what it serves (`/set-version/2`, `/set-broken/error`).
    public func set(_ path: String) throws {
        let answer = try run("curl", ["-sf", "--max-time", "5", url(path)])
        precondition(answer.status == 0, "list_server.py did not take \(path)")
    }

    /// The requests seen: "GET PATH IF-NONE-MATCH ACCEPT-ENCODING", oldest first.
    public var requests: [String] { server.logLines }
}

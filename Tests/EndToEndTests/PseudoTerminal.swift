import DNSTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A command run on a pseudo-terminal, as a person at a terminal runs it: the test reads what it
/// prints and types into it.
final class PseudoTerminal {
    private let master: Int32
    private let process = Process()
    private var output = ""

    init(_ executable: String, _ arguments: [String]) throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else { throw LockrProcess.Failure("openpty failed") }
        self.master = master
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = terminal
        process.standardOutput = terminal
        process.standardError = terminal
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(master)
    }

    /// Reads until the output contains `text` or `seconds` pass; returns all output so far. It
    /// awaits between reads rather than blocking, so that other tests run meanwhile.
    @discardableResult
    func read(until text: String, seconds: Double = 15) async -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !output.contains(text), Date() < deadline {
            var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 0) > 0 else {
                try? await Task.sleep(for: .milliseconds(20))
                continue
            }
            let got = Glibc.read(master, &buffer, buffer.count)
            guard got > 0 else {
                // Before the command opens its side of the terminal, or after it closed it.
                if !process.isRunning { break }
                try? await Task.sleep(for: .milliseconds(20))
                continue
            }
            output += String(decoding: buffer[0..<got], as: UTF8.self)
        }
        return output
    }

    /// Types `text` as it is (use "\r" for Enter, "\u{04}" for Ctrl-D).
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Sends `number` to the command, as the terminal does for Ctrl-C (SIGINT).
    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the command to end; its exit status and everything it printed. It is given 30 s:
    /// a PIN's key derivation beside a browser's tests takes a loaded machine more than 10.
    func finish(seconds: Double = 30) async -> (status: Int32, output: String) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { await read(until: "\u{0}", seconds: 0.05) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        await read(until: "\u{0}", seconds: 0.1)
        return (process.terminationStatus, output)
    }
}

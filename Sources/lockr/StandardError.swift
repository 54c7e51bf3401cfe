import Foundation

/// Writes a line to standard error.
func printError(_ message: String) {
    writeAll(STDERR_FILENO, message + "\n")
}

/// Writes `text` to standard output now, without a line end (a line a terminal rewrites in place).
/// What `print` holds back is written first.
func writeOut(_ text: String) {
    fflush(nil)
    writeAll(STDOUT_FILENO, text)
}

/// Writes all of `text` to `descriptor`, as much as it takes.
private func writeAll(_ descriptor: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            written += count
        } else if count < 0 && errno == EINTR {
            continue
        } else {
            return
        }
    }
}

/// All of standard input, up to its end.
func readStandardInput() -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        if count > 0 {
            data.append(contentsOf: buffer[..<count])
        } else if count == 0 || errno != EINTR {
            return data
        }
    }
}

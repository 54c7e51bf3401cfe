import Foundation
import LockrControl
import Testing

@Suite struct ControlFilesTests {
    func directory() throws -> String {
        let path = NSTemporaryDirectory() + "lockr-control-files-\(UUID())"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    @Test func theTokenIsMadeOnceWithMode0600AndKept() throws {
        let directory = try directory()
        let token = try ControlFiles.token(in: directory)
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        let path = directory + "/" + ControlFiles.tokenFile
        #expect(mode(path) == 0o600)
        #expect(try ControlFiles.token(in: directory) == token)
        // A token file others can read is narrowed again.
        chmod(path, 0o644)
        #expect(try ControlFiles.token(in: directory) == token)
        #expect(mode(path) == 0o600)
    }

    @Test func theEndpointComesFromTheAddressAndTokenFiles() throws {
        let directory = try directory()
        #expect(throws: ControlFilesError.self) { try ControlFiles.endpoint(in: directory) }
        let token = try ControlFiles.token(in: directory)
        try ControlFiles.writeAddress("127.0.0.1:5380", in: directory)
        let endpoint = try ControlFiles.endpoint(in: directory)
        #expect(endpoint.url == "http://127.0.0.1:5380")
        #expect(endpoint.token == token)
    }
}

import Foundation
import LockrControl
import Testing

@Suite struct ControlFilesTests {
    func directory() throws -> String {
        let path = NSTemporaryDirectory() + "lockr-control-files-\(UUID())"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Makes `path` (and its parents) with `mode`.
    func makeDirectory(_ path: String, mode: mode_t) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, mode)
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

    /// systemd's `DynamicUser` layout: /var/lib/lockr a link to /var/lib/private/lockr, which belongs
    /// to the service's own user.
    @Test func aLinkToADirectoryOfTheDaemonsOwnUserIsFollowed() throws {
        let base = try directory()
        let target = base + "/private/lockr"
        try makeDirectory(target, mode: 0o700)
        chmod(base + "/private", 0o700)
        let token = try ControlFiles.token(in: target)
        try ControlFiles.writeAddress("127.0.0.1:5380", in: target)
        let link = base + "/lockr"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "private/lockr")
        #expect(
            PrivateDirectory.problems(link, entries: .named([ControlFiles.addressFile, ControlFiles.tokenFile])).isEmpty
        )
        #expect(try ControlFiles.endpoint(in: link).token == token)

        // Another user's, as DynamicUser's uid is: its owner could read the token anyway.
        for path in [target, target + "/" + ControlFiles.addressFile, target + "/" + ControlFiles.tokenFile] {
            chown(path, 61_234, 61_234)
        }
        #expect(try ControlFiles.endpoint(in: link).token == token)
        // A file of a third user is not.
        chown(target + "/" + ControlFiles.addressFile, 61_235, 61_235)
        #expect(
            PrivateDirectory.problems(link, entries: .named([ControlFiles.addressFile])).first?.contains(
                "belongs to uid 61235")
                == true)
    }

    @Test func aLinkOthersCouldSwapOrThatPointsSomewhereOthersCanWriteIsRefused() throws {
        let base = try directory()
        let target = base + "/state"
        try makeDirectory(target, mode: 0o700)
        // The link lives in a directory anyone may write (no sticky bit): anyone could replace it.
        let open = base + "/open"
        try makeDirectory(open, mode: 0o777)
        try FileManager.default.createSymbolicLink(atPath: open + "/lockr", withDestinationPath: target)
        #expect(
            PrivateDirectory.problems(open + "/lockr").contains { $0.hasPrefix("\(open), above the state directory") })
        // The link is safe but its target's parent is not.
        let inside = open + "/state"
        try makeDirectory(inside, mode: 0o700)
        try FileManager.default.createSymbolicLink(atPath: base + "/lockr", withDestinationPath: inside)
        #expect(
            PrivateDirectory.problems(base + "/lockr").contains { $0.hasPrefix("\(open), above the state directory") })
    }
}

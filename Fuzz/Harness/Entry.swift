import Foundation

/// The target this run fuzzes, from `LOCKR_FUZZ_TARGET`.
nonisolated(unsafe) private var target: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> CInt {
    let name = ProcessInfo.processInfo.environment["LOCKR_FUZZ_TARGET"] ?? ""
    guard let chosen = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("set LOCKR_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    target = chosen
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    target?.run(bytes)
    return 0
}

import Glibc

/// Memory the program freed, given back to the system. glibc's allocator keeps what was freed for
/// later use; after a list's old rules are let go (tens of megabytes for a large list), that would
/// stay counted as lockr's until the next refresh reused it. `malloc_trim` is glibc's own (not in
/// the headers Swift sees), looked up once.
enum FreedMemory {
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim").map {
        unsafeBitCast($0, to: Trim.self)
    }

    static func giveBack() { _ = trim?(0) }
}

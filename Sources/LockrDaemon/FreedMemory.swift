import Glibc

/// Memory the program freed, given back to the system. glibc's allocator keeps what was freed for
/// later use; after a list's old rules are let go (tens of megabytes for a large list), that would
/// stay counted as lockr's until the next refresh reused it. `malloc_trim` and `mallopt` are
/// glibc's own (not in the headers Swift sees), looked up once.
enum FreedMemory {
    private typealias Trim = @convention(c) (Int) -> Int32
    private typealias Option = @convention(c) (Int32, Int32) -> Int32
    private static let trim: Trim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim").map {
        unsafeBitCast($0, to: Trim.self)
    }
    private static let option: Option? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt").map {
        unsafeBitCast($0, to: Option.self)
    }

    static func giveBack() { _ = trim?(0) }

    /// Keeps large blocks (the query log's batches, a list's buffers) in mappings of their own,
    /// returned to the system when freed. Left alone, glibc raises its threshold for that after each
    /// large block freed, up to 32 MiB, so that later ones come from the heap, where a block that is
    /// not at its top cannot be given back: after a burst of queries the daemon stayed 20-30 MiB
    /// larger. Call once, before the daemon allocates much.
    static func keepLargeBlocksApart() {
        let mmapThreshold: Int32 = -3, trimThreshold: Int32 = -1  // M_MMAP_THRESHOLD, M_TRIM_THRESHOLD
        let bytes: Int32 = 128 * 1024  // glibc's own starting value for both
        _ = option?(mmapThreshold, bytes)
        _ = option?(trimThreshold, bytes)
    }
}

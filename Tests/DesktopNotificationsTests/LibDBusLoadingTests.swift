import CDBus
import CDBusHeaders
import Testing

@testable import DesktopNotifications

/// libdbus is loaded when the first notification is shown, through declarations of lockr's own;
/// where it cannot be, the notification is refused in words that say what to install.
@Suite struct LibDBusLoadingTests {
    func reason(_ loaded: Result<LibDBus.Library, NotificationError>) -> String? {
        guard case .failure(let error) = loaded else { return nil }
        return error.description
    }

    @Test func aMissingLibraryIsNamedWithWhatToInstall() {
        let words = reason(LibDBus.load("libdbus-not-here.so.3"))
        #expect(words?.contains("libdbus-not-here.so.3") == true, "\(words ?? "loaded")")
        #expect(words?.hasSuffix("apt-get install libdbus-1-3)") == true, "\(words ?? "loaded")")
    }

    @Test func aLibraryWithoutItsFunctionsIsRefused() {
        let words = reason(LibDBus.load("libz.so.1"))
        #expect(words?.contains("libz.so.1 has no dbus_error_init") == true, "\(words ?? "loaded")")
    }

    @Test func debiansLibraryHasEveryFunction() throws {
        let library = try LibDBus.library.get().functions
        #expect(library.dbus_error_init != nil && library.dbus_message_iter_get_basic != nil)
    }

    /// The structures lockr allocates and hands to libdbus are laid out as libdbus's headers say.
    @Test func theStructuresLockrAllocatesMatchLibDBusHeaders() {
        #expect(MemoryLayout<lockr_dbus_error>.size == lockr_test_dbus_error_size())
        #expect(MemoryLayout<lockr_dbus_error>.alignment == lockr_test_dbus_error_alignment())
        #expect(MemoryLayout<lockr_dbus_error>.offset(of: \.message) == lockr_test_dbus_error_message_offset())
        #expect(MemoryLayout<lockr_dbus_message_iter>.size == lockr_test_dbus_iter_size())
        #expect(MemoryLayout<lockr_dbus_message_iter>.alignment == lockr_test_dbus_iter_alignment())
    }

    @Test func theCodesLockrSendsAreLibDBusOwn() {
        var codes = [Int32](repeating: -1, count: 8)
        lockr_test_dbus_codes(&codes)
        let lockrs = [
            LOCKR_DBUS_BUS_SESSION, LOCKR_DBUS_TYPE_ARRAY, LOCKR_DBUS_TYPE_BYTE, LOCKR_DBUS_TYPE_DICT_ENTRY,
            LOCKR_DBUS_TYPE_INT32, LOCKR_DBUS_TYPE_STRING, LOCKR_DBUS_TYPE_UINT32, LOCKR_DBUS_TYPE_VARIANT,
        ].map { Int32($0) }
        #expect(lockrs == codes)
    }
}

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// libdbus (Debian's libdbus-1-3), loaded with dlopen when lockr first shows a notification, not
// linked: the daemon starts without it and what it brings (libsystemd, libgcrypt, lz4, zstd, lzma,
// libcap). The functions lockr calls are declared here as libdbus 1.x's headers declare them; the two
// structures lockr itself allocates keep their public layout (32 and 72 bytes on a 64-bit machine),
// which libdbus keeps stable across 1.x.

typedef struct lockr_dbus_connection lockr_dbus_connection;  // DBusConnection
typedef struct lockr_dbus_message lockr_dbus_message;  // DBusMessage
typedef uint32_t lockr_dbus_bool;

/// dbus/dbus-errors.h's DBusError: the name and message are public, the rest placeholders.
typedef struct lockr_dbus_error {
    const char *name;
    const char *message;
    unsigned int dummy1 : 1, dummy2 : 1, dummy3 : 1, dummy4 : 1, dummy5 : 1;
    void *padding1;
} lockr_dbus_error;

/// dbus/dbus-message.h's DBusMessageIter: no public fields, only its size and alignment matter.
typedef struct lockr_dbus_message_iter {
    void *dummy1, *dummy2;
    uint32_t dummy3;
    int dummy4, dummy5, dummy6, dummy7, dummy8, dummy9, dummy10, dummy11, pad1;
    void *pad2, *pad3;
} lockr_dbus_message_iter;

enum {
    LOCKR_DBUS_BUS_SESSION = 0,
    LOCKR_DBUS_TYPE_ARRAY = 'a',
    LOCKR_DBUS_TYPE_BYTE = 'y',
    LOCKR_DBUS_TYPE_DICT_ENTRY = 'e',
    LOCKR_DBUS_TYPE_INT32 = 'i',
    LOCKR_DBUS_TYPE_STRING = 's',
    LOCKR_DBUS_TYPE_UINT32 = 'u',
    LOCKR_DBUS_TYPE_VARIANT = 'v',
};

/// The libdbus functions lockr calls, found in the loaded library.
typedef struct lockr_dbus_library {
    void (*dbus_error_init)(lockr_dbus_error *);
    void (*dbus_error_free)(lockr_dbus_error *);
    lockr_dbus_bool (*dbus_error_is_set)(const lockr_dbus_error *);
    void (*dbus_set_error_const)(lockr_dbus_error *, const char *, const char *);
    lockr_dbus_bool (*dbus_threads_init_default)(void);
    lockr_dbus_connection *(*dbus_bus_get_private)(int, lockr_dbus_error *);
    void (*dbus_connection_set_exit_on_disconnect)(lockr_dbus_connection *, lockr_dbus_bool);
    void (*dbus_connection_close)(lockr_dbus_connection *);
    void (*dbus_connection_unref)(lockr_dbus_connection *);
    lockr_dbus_message *(*dbus_message_new_method_call)(const char *, const char *, const char *, const char *);
    void (*dbus_message_unref)(lockr_dbus_message *);
    void (*dbus_message_iter_init_append)(lockr_dbus_message *, lockr_dbus_message_iter *);
    lockr_dbus_bool (*dbus_message_iter_append_basic)(lockr_dbus_message_iter *, int, const void *);
    lockr_dbus_bool (*dbus_message_iter_open_container)(lockr_dbus_message_iter *, int, const char *, lockr_dbus_message_iter *);
    lockr_dbus_bool (*dbus_message_iter_close_container)(lockr_dbus_message_iter *, lockr_dbus_message_iter *);
    lockr_dbus_message *(*dbus_connection_send_with_reply_and_block)(lockr_dbus_connection *, lockr_dbus_message *, int, lockr_dbus_error *);
    lockr_dbus_bool (*dbus_message_iter_init)(lockr_dbus_message *, lockr_dbus_message_iter *);
    int (*dbus_message_iter_get_arg_type)(lockr_dbus_message_iter *);
    void (*dbus_message_iter_get_basic)(lockr_dbus_message_iter *, void *);
} lockr_dbus_library;

/// Loads `file` (libdbus-1.so.3) and fills `library`. Returns 0, or -1 with the reason in `reason`
/// (dlerror's words).
static inline int lockr_dbus_load(const char *file, lockr_dbus_library *library, char *reason, size_t reasonSize) {
    void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(reason, reasonSize, "%s", dlerror());
        return -1;
    }
#define LOCKR_DBUS_FIND(name)                                                              \
    if ((*(void **)&library->name = dlsym(handle, #name)) == NULL) {                       \
        snprintf(reason, reasonSize, "%s has no %s", file, #name);                         \
        return -1;                                                                         \
    }
    LOCKR_DBUS_FIND(dbus_error_init)
    LOCKR_DBUS_FIND(dbus_error_free)
    LOCKR_DBUS_FIND(dbus_error_is_set)
    LOCKR_DBUS_FIND(dbus_set_error_const)
    LOCKR_DBUS_FIND(dbus_threads_init_default)
    LOCKR_DBUS_FIND(dbus_bus_get_private)
    LOCKR_DBUS_FIND(dbus_connection_set_exit_on_disconnect)
    LOCKR_DBUS_FIND(dbus_connection_close)
    LOCKR_DBUS_FIND(dbus_connection_unref)
    LOCKR_DBUS_FIND(dbus_message_new_method_call)
    LOCKR_DBUS_FIND(dbus_message_unref)
    LOCKR_DBUS_FIND(dbus_message_iter_init_append)
    LOCKR_DBUS_FIND(dbus_message_iter_append_basic)
    LOCKR_DBUS_FIND(dbus_message_iter_open_container)
    LOCKR_DBUS_FIND(dbus_message_iter_close_container)
    LOCKR_DBUS_FIND(dbus_connection_send_with_reply_and_block)
    LOCKR_DBUS_FIND(dbus_message_iter_init)
    LOCKR_DBUS_FIND(dbus_message_iter_get_arg_type)
    LOCKR_DBUS_FIND(dbus_message_iter_get_basic)
#undef LOCKR_DBUS_FIND
    return 0;
}

/// Calls org.freedesktop.Notifications.Notify on `connection` (no actions; the urgency hint:
/// 0 low, 1 normal, 2 critical) and waits up to `timeout_ms` for the server's answer. Returns 0
/// with the notification's id in `*id`, or -1 with `error` set. Building the message here keeps
/// the container calls on the C side.
static inline int lockr_dbus_notify(
    const lockr_dbus_library *dbus, lockr_dbus_connection *connection, const char *app, uint32_t replaces,
    const char *summary, const char *body, unsigned char urgency, int32_t expire_ms, int timeout_ms, uint32_t *id,
    lockr_dbus_error *error) {
    static const char *no_memory = "org.freedesktop.DBus.Error.NoMemory";
    lockr_dbus_message *message = dbus->dbus_message_new_method_call(
        "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications", "Notify");
    if (message == NULL) {
        dbus->dbus_set_error_const(error, no_memory, "out of memory");
        return -1;
    }
    const char *icon = "";
    const char *urgency_key = "urgency";
    lockr_dbus_message_iter args, actions, hints, entry, variant;
    dbus->dbus_message_iter_init_append(message, &args);
    int built = dbus->dbus_message_iter_append_basic(&args, LOCKR_DBUS_TYPE_STRING, &app)
        && dbus->dbus_message_iter_append_basic(&args, LOCKR_DBUS_TYPE_UINT32, &replaces)
        && dbus->dbus_message_iter_append_basic(&args, LOCKR_DBUS_TYPE_STRING, &icon)
        && dbus->dbus_message_iter_append_basic(&args, LOCKR_DBUS_TYPE_STRING, &summary)
        && dbus->dbus_message_iter_append_basic(&args, LOCKR_DBUS_TYPE_STRING, &body)
        && dbus->dbus_message_iter_open_container(&args, LOCKR_DBUS_TYPE_ARRAY, "s", &actions)
        && dbus->dbus_message_iter_close_container(&args, &actions)
        && dbus->dbus_message_iter_open_container(&args, LOCKR_DBUS_TYPE_ARRAY, "{sv}", &hints)
        && dbus->dbus_message_iter_open_container(&hints, LOCKR_DBUS_TYPE_DICT_ENTRY, NULL, &entry)
        && dbus->dbus_message_iter_append_basic(&entry, LOCKR_DBUS_TYPE_STRING, &urgency_key)
        && dbus->dbus_message_iter_open_container(&entry, LOCKR_DBUS_TYPE_VARIANT, "y", &variant)
        && dbus->dbus_message_iter_append_basic(&variant, LOCKR_DBUS_TYPE_BYTE, &urgency)
        && dbus->dbus_message_iter_close_container(&entry, &variant)
        && dbus->dbus_message_iter_close_container(&hints, &entry)
        && dbus->dbus_message_iter_close_container(&args, &hints)
        && dbus->dbus_message_iter_append_basic(&args, LOCKR_DBUS_TYPE_INT32, &expire_ms);
    if (!built) {
        dbus->dbus_message_unref(message);
        dbus->dbus_set_error_const(error, no_memory, "out of memory");
        return -1;
    }
    lockr_dbus_message *reply = dbus->dbus_connection_send_with_reply_and_block(connection, message, timeout_ms, error);
    dbus->dbus_message_unref(message);
    if (reply == NULL) return -1;
    lockr_dbus_message_iter result;
    int answered = dbus->dbus_message_iter_init(reply, &result)
        && dbus->dbus_message_iter_get_arg_type(&result) == LOCKR_DBUS_TYPE_UINT32;
    if (answered) {
        dbus->dbus_message_iter_get_basic(&result, id);
    } else {
        dbus->dbus_set_error_const(
            error, "org.freedesktop.DBus.Error.InvalidArgs", "the notification server's answer carried no id");
    }
    dbus->dbus_message_unref(reply);
    return answered ? 0 : -1;
}

/// The session bus, on a connection of lockr's own that does not end the program when the bus goes.
static inline lockr_dbus_connection *lockr_dbus_session(const lockr_dbus_library *dbus, lockr_dbus_error *error) {
    dbus->dbus_threads_init_default();
    lockr_dbus_connection *connection = dbus->dbus_bus_get_private(LOCKR_DBUS_BUS_SESSION, error);
    if (connection != NULL) dbus->dbus_connection_set_exit_on_disconnect(connection, 0);
    return connection;
}

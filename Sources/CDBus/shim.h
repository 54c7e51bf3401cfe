#include <dbus/dbus.h>

/// Calls org.freedesktop.Notifications.Notify on `connection` (no actions; the urgency hint:
/// 0 low, 1 normal, 2 critical) and waits up to `timeout_ms` for the server's answer. Returns 0
/// with the notification's id in `*id`, or -1 with `error` set. Building the message here keeps
/// the container calls, whose macros Swift cannot see, on the C side.
static inline int lockr_dbus_notify(
    DBusConnection *connection, const char *app, dbus_uint32_t replaces, const char *summary, const char *body,
    unsigned char urgency, dbus_int32_t expire_ms, int timeout_ms, dbus_uint32_t *id, DBusError *error) {
    DBusMessage *message = dbus_message_new_method_call(
        "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications", "Notify");
    if (message == NULL) {
        dbus_set_error_const(error, DBUS_ERROR_NO_MEMORY, "out of memory");
        return -1;
    }
    const char *icon = "";
    const char *urgency_key = "urgency";
    DBusMessageIter args, actions, hints, entry, variant;
    dbus_message_iter_init_append(message, &args);
    int built = dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &app)
        && dbus_message_iter_append_basic(&args, DBUS_TYPE_UINT32, &replaces)
        && dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &icon)
        && dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &summary)
        && dbus_message_iter_append_basic(&args, DBUS_TYPE_STRING, &body)
        && dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "s", &actions)
        && dbus_message_iter_close_container(&args, &actions)
        && dbus_message_iter_open_container(&args, DBUS_TYPE_ARRAY, "{sv}", &hints)
        && dbus_message_iter_open_container(&hints, DBUS_TYPE_DICT_ENTRY, NULL, &entry)
        && dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &urgency_key)
        && dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "y", &variant)
        && dbus_message_iter_append_basic(&variant, DBUS_TYPE_BYTE, &urgency)
        && dbus_message_iter_close_container(&entry, &variant)
        && dbus_message_iter_close_container(&hints, &entry)
        && dbus_message_iter_close_container(&args, &hints)
        && dbus_message_iter_append_basic(&args, DBUS_TYPE_INT32, &expire_ms);
    if (!built) {
        dbus_message_unref(message);
        dbus_set_error_const(error, DBUS_ERROR_NO_MEMORY, "out of memory");
        return -1;
    }
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(connection, message, timeout_ms, error);
    dbus_message_unref(message);
    if (reply == NULL) return -1;
    DBusMessageIter result;
    int answered = dbus_message_iter_init(reply, &result) && dbus_message_iter_get_arg_type(&result) == DBUS_TYPE_UINT32;
    if (answered) {
        dbus_message_iter_get_basic(&result, id);
    } else {
        dbus_set_error_const(error, DBUS_ERROR_INVALID_ARGS, "the notification server's answer carried no id");
    }
    dbus_message_unref(reply);
    return answered ? 0 : -1;
}

/// The session bus, on a connection of lockr's own that does not end the program when the bus goes.
static inline DBusConnection *lockr_dbus_session(DBusError *error) {
    dbus_threads_init_default();
    DBusConnection *connection = dbus_bus_get_private(DBUS_BUS_SESSION, error);
    if (connection != NULL) dbus_connection_set_exit_on_disconnect(connection, FALSE);
    return connection;
}

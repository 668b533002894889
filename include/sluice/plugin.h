/* include/sluice/plugin.h
 *
 * The sluice plugin ABI: everything a runtime plugin (a shared object that
 * INSTALL PLUGIN or --plugin-load-add loads from plugin_dir) sees of the
 * server. Plain C, usable from C and C++; no C++ type crosses it.
 *
 * A shared object exports one symbol, SLUICE_PLUGIN_DECLARATIONS_SYMBOL: an
 * array of sluice_plugin_descriptor ended by an entry whose name is NULL, so
 * one library may hold several plugins:
 *
 *   SLUICE_PLUGIN_EXPORT const sluice_plugin_descriptor
 *       sluice_plugin_declarations[] = {
 *     {SLUICE_PLUGIN_ABI_VERSION, sizeof(sluice_plugin_descriptor), "example", ...},
 *     {0}};
 *
 * Versioning: SLUICE_PLUGIN_ABI_VERSION is (major << 16) | minor. Every
 * descriptor of every version starts with abi_version and struct_size (the
 * array's stride), so the server can refuse any other version safely. The server
 * refuses a descriptor of another major (1126) and one of a higher minor
 * than its own (it may rely on services the server lacks). A minor release
 * only appends members to the end of these structs, so each struct the
 * plugin hands over carries its struct_size and the server reads no member
 * beyond it; the services table the server hands over carries its own
 * struct_size and abi_version for the same check the other way.
 * sluice_sysvar and sluice_statusvar carry no struct_size (arrays of them
 * are walked with the server's sizeof): they change only with a major.
 *
 * Lifecycle (docs/plugins.md has the whole story):
 *   INSTALL: dlopen; the descriptor is found by name; its system variables
 *     are registered (their storage gets the default, a persisted value or a
 *     start-up value); init() runs; its status variables appear. init()
 *     failing undoes all of it (1123).
 *   UNINSTALL: check_uninstall() may refuse with its own error; then the
 *     plugin's observers are unregistered, hook calls already in flight are
 *     waited for, its variables disappear (1193 from then on), deinit() runs
 *     and the library is closed when the last reference to it goes.
 *   Every callback may run on any server thread, several at once: a plugin
 *   protects its own state.
 */
#ifndef SLUICE_PLUGIN_H
#define SLUICE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SLUICE_PLUGIN_ABI_MAJOR 1
#define SLUICE_PLUGIN_ABI_MINOR 3
#define SLUICE_PLUGIN_ABI_VERSION ((SLUICE_PLUGIN_ABI_MAJOR << 16) | SLUICE_PLUGIN_ABI_MINOR)
#define SLUICE_PLUGIN_ABI_MAJOR_OF(v) ((uint32_t)(v) >> 16)
#define SLUICE_PLUGIN_ABI_MINOR_OF(v) ((uint32_t)(v)&0xffffu)

/* The exported array's name. */
#define SLUICE_PLUGIN_DECLARATIONS_SYMBOL "sluice_plugin_declarations"

#if defined(__GNUC__)
#define SLUICE_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SLUICE_PLUGIN_EXPORT
#endif

/* Reads a value the server stores in a variable's storage (below) while
 * other threads may run: the server writes it with a relaxed atomic store. */
#define SLUICE_PLUGIN_LOAD(ptr) __atomic_load_n((ptr), __ATOMIC_RELAXED)

/* ------------------------------------------------------------ errors */

/* How a plugin refuses something with a MySQL error of its own: init (the
 * client gets it instead of 1123's generic text), check_uninstall (e.g.
 * 1883 ER_PLUGIN_CANNOT_BE_UNINSTALLED), a variable's check. code 0 leaves
 * the server's default error. */
typedef struct sluice_plugin_error {
  uint32_t code;      /* MySQL error number, e.g. 1883 */
  char sqlstate[6];   /* 5 characters and NUL; empty: "HY000" */
  char message[512];  /* NUL-terminated, the whole client-visible text */
} sluice_plugin_error;

/* ------------------------------------------------------------ variables */

typedef enum sluice_var_type {
  SLUICE_VAR_BOOL = 1,   /* value.i 0/1; storage: int32_t */
  SLUICE_VAR_INT = 2,    /* value.i within [min_int, max_int]; storage: int64_t */
  SLUICE_VAR_UINT = 3,   /* value.u within [min_uint, max_uint]; storage: uint64_t */
  SLUICE_VAR_ENUM = 4,   /* value.u the index into enum_names; storage: uint64_t */
  SLUICE_VAR_STRING = 5  /* value.s (NULL: NULL); storage: char[string_capacity] */
} sluice_var_type;

/* Flags of a system variable. */
#define SLUICE_VAR_READONLY 0x1u    /* SET GLOBAL refused (1238); start-up value only */
#define SLUICE_VAR_NOPERSIST 0x2u   /* SET PERSIST refused */
#define SLUICE_VAR_NULLABLE 0x4u    /* STRING: may be NULL */

typedef struct sluice_var_value {
  int64_t i;     /* BOOL, INT */
  uint64_t u;    /* UINT, ENUM */
  const char* s; /* STRING; valid for the callback's duration only */
} sluice_var_value;

/* A global system variable, listed in SHOW VARIABLES and reachable through
 * SELECT @@global.name, SET GLOBAL / PERSIST while the plugin is installed.
 * Arrays of them end with an entry whose name is NULL. */
typedef struct sluice_sysvar {
  const char* name;  /* the full name users type, e.g. "rpl_semi_sync_source_enabled" */
  const char* alias; /* a second name of the same variable (old spelling), or NULL */
  sluice_var_type type;
  uint32_t flags; /* SLUICE_VAR_* */
  const char* help;
  int64_t default_int, min_int, max_int;     /* BOOL (0/1), INT */
  uint64_t default_uint, min_uint, max_uint; /* UINT; ENUM: default_uint is the index */
  const char* const* enum_names;             /* ENUM: NULL-terminated, in index order */
  const char* default_string;                /* STRING (NULL: NULL, needs NULLABLE) */
  /* Where the server writes the current global value (may be NULL): typed
   * as the comments of sluice_var_type say. Numbers are written with a
   * relaxed atomic store (read them with SLUICE_PLUGIN_LOAD); a STRING is
   * copied NUL-terminated and written only under the server's SET lock, so
   * read it in on_update or init, or keep your own copy. */
  void* storage;
  size_t string_capacity; /* STRING storage: bytes including the NUL */
  /* Optional: runs before a SET GLOBAL / PERSIST stores `value` (already
   * range-checked); non-zero refuses it with `error` (or 1231 when
   * error->code is 0). */
  int (*check)(void* plugin_data, const sluice_var_value* value, sluice_plugin_error* error);
  /* Optional: runs after a SET stored `value` (and storage holds it).
   * Runs under the server's SET lock: it must not block long. */
  void (*on_update)(void* plugin_data, const sluice_var_value* value);
  /* Optional: computes the value on every read instead of the stored one
   * (a get/set pair with on_update). STRING: write at most `capacity`
   * bytes including the NUL into `buf` and point value->s at it. */
  void (*get)(void* plugin_data, sluice_var_value* value, char* buf, size_t capacity);
} sluice_sysvar;

typedef enum sluice_status_type {
  SLUICE_STATUS_INT = 1,    /* value.i */
  SLUICE_STATUS_UINT = 2,   /* value.u */
  SLUICE_STATUS_BOOL = 3,   /* value.i, shown ON / OFF */
  SLUICE_STATUS_DOUBLE = 4, /* value.d */
  SLUICE_STATUS_STRING = 5  /* value.text */
} sluice_status_type;

typedef struct sluice_status_value {
  int64_t i;
  uint64_t u;
  double d;
  char text[256];
} sluice_status_value;

/* A status variable in SHOW [GLOBAL] STATUS (the same value in both
 * scopes). Either `counter` (an int64_t / uint64_t / int32_t for BOOL that
 * the server reads with a relaxed atomic load) or `get`. Arrays end with an
 * entry whose name is NULL. */
typedef struct sluice_statusvar {
  const char* name; /* as listed, e.g. "Rpl_semi_sync_source_yes_tx" */
  const char* alias;
  sluice_status_type type;
  const void* counter;
  void (*get)(void* plugin_data, sluice_status_value* value);
} sluice_statusvar;

/* ------------------------------------------------------------ observers */
/* Each hook returns 0 on success. A non-zero return fails the operation
 * where MySQL does ("Failed to run hook '<name>'", 1105): transmit hooks end
 * the dump; before_commit fails the commit; later commit hooks are logged.
 * Every member may be NULL (not called). user_data is passed back as is.
 * Register the same struct (same address) to unregister it; it must stay
 * valid until unregistered or deinit returns. */

typedef struct sluice_trans_param {
  uint32_t connection_id;
  const char* gtid; /* "uuid:n", not NUL-terminated */
  size_t gtid_len;
  const char* log_file; /* binlog file of the transaction's end, not NUL-terminated */
  size_t log_file_len;
  uint64_t log_pos; /* end position of the transaction in log_file */
} sluice_trans_param;

typedef struct sluice_trans_observer {
  uint32_t struct_size; /* sizeof(sluice_trans_observer) */
  void* user_data;
  int (*before_commit)(void* user_data, const sluice_trans_param* param);
  int (*after_commit)(void* user_data, const sluice_trans_param* param);
  int (*after_rollback)(void* user_data, const sluice_trans_param* param);
} sluice_trans_observer;

/* Called once per commit group, by the group's leader. */
typedef struct sluice_binlog_storage_observer {
  uint32_t struct_size;
  void* user_data;
  int (*after_flush)(void* user_data, const char* log_file, size_t log_file_len, uint64_t log_pos);
  int (*after_sync)(void* user_data, const char* log_file, size_t log_file_len, uint64_t log_pos);
} sluice_binlog_storage_observer;

/* Observer's answers in sluice_transmit_param.flags. Neither: observed. */
#define SLUICE_TRANSMIT_OBSERVE 1u      /* F_OBSERVE */
#define SLUICE_TRANSMIT_DONT_OBSERVE 2u /* F_DONT_OBSERVE */

/* A dump connection's socket, for reading what the reader sends back
 * (semisync acks) and for pushing what was sent: see the dump_* services.
 * Valid from transmit_start until transmit_stop returns. (ABI 1.1) */
typedef struct sluice_dump_connection sluice_dump_connection;

/* One dump connection, as transmit hooks see it. */
typedef struct sluice_transmit_param {
  uint32_t server_id;     /* the reader's server_id */
  uint32_t connection_id; /* the dump connection */
  uint16_t dump_flags;    /* COM_BINLOG_DUMP flags */
  const char* host;       /* the reader's address, NUL-terminated */
  uint32_t flags;         /* transmit_start sets SLUICE_TRANSMIT_* */
  /* Per-connection state the observer may keep (it owns it); kept from
   * transmit_start to transmit_stop. */
  void* observer_data;
  /* The dump connection's user variable `name` (e.g.
   * "rpl_semi_sync_replica") as text: copies at most capacity-1 bytes and
   * a NUL into buf and returns the full length, or -1 when it is unset. */
  int64_t (*user_var)(const struct sluice_transmit_param* param, const char* name, char* buf,
                      size_t capacity);
  const void* server_data; /* the server's; do not touch */
  /* ABI 1.1: the connection (NULL where there is none, e.g. a test) and
   * its socket for poll/epoll (-1 without a connection). On TLS the socket
   * becoming readable may carry no whole packet: dump_read_packet then
   * answers 0. */
  sluice_dump_connection* connection;
  int socket_fd;
  /* ABI 1.2: 1 where dump_read_packet may wait for a write the dump thread
   * has in progress (TLS: both directions share the stream's state, and a
   * reader that stops reading can hold a write for as long as it likes);
   * 0 where it never waits (a plain socket). A thread that must not be
   * held (a committing session) reads only where it is 0. From 1.3 such a
   * read waits a moment at most and then answers 2 (dump_read_packet). */
  int reads_wait_for_writes;
} sluice_transmit_param;

typedef struct sluice_binlog_transmit_observer {
  uint32_t struct_size;
  void* user_data;
  int (*transmit_start)(void* user_data, sluice_transmit_param* param, const char* log_file,
                        size_t log_file_len, uint64_t log_pos);
  int (*transmit_stop)(void* user_data, sluice_transmit_param* param);
  /* Writes at most `capacity` bytes of extra packet header (semisync:
   * EF 00), placed after the OK byte of every event packet; sets *len. */
  int (*reserve_header)(void* user_data, sluice_transmit_param* param, uint8_t* header,
                        size_t capacity, size_t* len);
  /* May rewrite bytes of the packet about to be sent (it starts with the OK
   * byte and the reserved header); its length cannot change. */
  int (*before_send_event)(void* user_data, sluice_transmit_param* param, uint8_t* packet,
                           size_t packet_len, const char* log_file, size_t log_file_len,
                           uint64_t log_pos);
  int (*after_send_event)(void* user_data, sluice_transmit_param* param, const uint8_t* event,
                          size_t event_len, const char* log_file, size_t log_file_len,
                          uint64_t log_pos);
  int (*after_reset_master)(void* user_data);
} sluice_binlog_transmit_observer;

/* ------------------------------------------------------------ services */

typedef enum sluice_log_level {
  SLUICE_LOG_ERROR = 1,
  SLUICE_LOG_WARNING = 2,
  SLUICE_LOG_INFO = 3, /* "Note" in the error log */
  SLUICE_LOG_SYSTEM = 4
} sluice_log_level;

typedef struct sluice_plugin_handle sluice_plugin_handle; /* opaque */

/* What the server offers a plugin. Passed to init(); valid until deinit()
 * returns. Functions returning int give 0 on success. */
typedef struct sluice_plugin_services {
  uint32_t abi_version; /* the server's SLUICE_PLUGIN_ABI_VERSION */
  uint32_t struct_size; /* sizeof(sluice_plugin_services) in the server */
  sluice_plugin_handle* handle; /* this plugin; pass it to every function below */

  /* Writes `message` to the error log, prefixed with the plugin's name. */
  void (*log)(sluice_plugin_handle* h, sluice_log_level level, const char* message);

  /* Observers (server/rpl/delegates.h's hook points). Registering the same
   * struct twice fails; unregistering one not registered fails. The
   * server unregisters what is left at UNINSTALL. */
  int (*register_trans_observer)(sluice_plugin_handle* h, const sluice_trans_observer* o);
  int (*unregister_trans_observer)(sluice_plugin_handle* h, const sluice_trans_observer* o);
  int (*register_binlog_storage_observer)(sluice_plugin_handle* h,
                                          const sluice_binlog_storage_observer* o);
  int (*unregister_binlog_storage_observer)(sluice_plugin_handle* h,
                                            const sluice_binlog_storage_observer* o);
  int (*register_binlog_transmit_observer)(sluice_plugin_handle* h,
                                           const sluice_binlog_transmit_observer* o);
  int (*unregister_binlog_transmit_observer)(sluice_plugin_handle* h,
                                             const sluice_binlog_transmit_observer* o);

  /* ABI 1.1: a dump connection's other direction (semisync acks). */
  /* Reads one packet the reader sent, without blocking; safe on any thread
   * while the dump thread writes (one reader thread per connection at a
   * time). 1: a packet's payload is in buf (*len bytes); 0: no whole
   * packet has arrived yet; -1: the connection is closed or failed, or the
   * packet is longer than capacity (stop reading it). ABI 1.3, to a plugin
   * built with 1.3 or later: 2 where reads_wait_for_writes is 1 and a
   * write the dump thread has in progress held the connection for more
   * than a moment (its reader is not reading): nothing was read, and the
   * socket may stay readable; try again later (a plugin built with 1.2
   * waits for the write instead). */
  int (*dump_read_packet)(sluice_plugin_handle* h, sluice_dump_connection* c, uint8_t* buf,
                          size_t capacity, size_t* len);
  /* Dump thread only (from a transmit hook): writes out the packets
   * buffered so far; next_sequence_id >= 0 makes it the sequence id of the
   * next packet (semisync: 1, after a packet that asked for an ack, whose
   * ack the reader sent with id 0). 0 on success. */
  int (*dump_flush)(sluice_plugin_handle* h, sluice_dump_connection* c, int32_t next_sequence_id);
  /* Any thread: ends the connection (its dump stops at its next write). */
  void (*dump_close)(sluice_plugin_handle* h, sluice_dump_connection* c);
  /* Holds every dump reader no transmit observer asked for (the plain
   * readers) at `log_pos` of `log_file`: they are sent nothing beyond it
   * until it moves. log_file NULL releases them. Returns 0, or non-zero
   * when there is no binlog or the file is not one of its files. */
  int (*set_reader_limit)(sluice_plugin_handle* h, const char* log_file, size_t log_file_len, uint64_t log_pos);
} sluice_plugin_services;

/* ------------------------------------------------------------ descriptor */

typedef struct sluice_plugin_descriptor {
  uint32_t abi_version; /* SLUICE_PLUGIN_ABI_VERSION the plugin was built with */
  uint32_t struct_size; /* sizeof(sluice_plugin_descriptor) */
  const char* name;     /* INSTALL PLUGIN's name; NULL ends the array */
  const char* author;
  const char* description;
  const char* license; /* "GPL", "BSD", "Proprietary", ... */
  const char* version; /* e.g. "1.0", shown as PLUGIN_VERSION */
  /* Runs at install / start-up after the variables are registered. Sets
   * *plugin_data (passed to every callback below). Non-zero: the install
   * fails with `error` (1123 when error->code is 0). */
  int (*init)(const sluice_plugin_services* services, void** plugin_data, sluice_plugin_error* error);
  /* Runs at UNINSTALL and at shutdown, after the observers are gone. */
  void (*deinit)(void* plugin_data);
  /* Optional: non-zero refuses UNINSTALL with `error` (e.g. 1883). */
  int (*check_uninstall)(void* plugin_data, sluice_plugin_error* error);
  const sluice_sysvar* sysvars;       /* NULL-name-terminated, or NULL */
  const sluice_statusvar* statusvars; /* NULL-name-terminated, or NULL */
} sluice_plugin_descriptor;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_PLUGIN_H */

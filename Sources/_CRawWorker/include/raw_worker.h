#ifndef IMGQUALITY_RAW_WORKER_H
#define IMGQUALITY_RAW_WORKER_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* LibRaw 0.20 (Debian 12's) ends the process on some hostile files: a null pointer read while
   parsing a TIFF directory, a buffer overrun that glibc's fortify check turns into an abort.
   A raw file is therefore read in a child process: whatever LibRaw does there, the caller gets
   an answer and goes on. The child runs only this file's C code (LibRaw, malloc, write) and
   leaves with _exit; it writes its answer to a pipe as messages, each a header and, for a
   preview or a developed image, `length` bytes after it. */

/* a = width, b = height, c = LibRaw's flip: the sensor image, before anything is unpacked */
#define IQ_RAW_OPENED 1
/* status = LibRaw's status (or IQ_RAW_UNEXPECTED_IMAGE), a = the stage, c = whether LibRaw's
   data error handler saw the file end early */
#define IQ_RAW_FAILED 2
/* the embedded full-size JPEG: `length` bytes */
#define IQ_RAW_PREVIEW 3
/* the half-size development, 8-bit RGB rows: a = width, b = height, `length` = a * b * 3 */
#define IQ_RAW_DEVELOPED 4

/* The stages an IQ_RAW_FAILED message names. */
#define IQ_RAW_STAGE_OPEN 0
#define IQ_RAW_STAGE_UNPACK 1
#define IQ_RAW_STAGE_PROCESS 2
#define IQ_RAW_STAGE_IMAGE 3

/* LibRaw developed something other than 8-bit, 3-colour bitmap. */
#define IQ_RAW_UNEXPECTED_IMAGE (-1000)

typedef struct {
    int32_t kind, status, a, b, c, reserved;
    uint64_t length;
} iq_raw_message;

/* Forks a child that opens `data` with LibRaw and writes its messages to a pipe: OPENED (or
   FAILED), then PREVIEW when the embedded JPEG's long side is at least `preview_share` of the
   sensor image's, else DEVELOPED (or FAILED). On success returns 0 with the pipe's read end
   (close-on-exec) and the child's pid; on failure returns errno, ELIBACC when LibRaw cannot be
   loaded (iq_raw_load_error says why). */
int iq_raw_worker_start(const void *data, size_t size, double preview_share, int *read_fd, pid_t *pid);

/* Reads exactly `length` bytes from `fd`, waiting at most until `deadline_ns` (CLOCK_MONOTONIC,
   0 for no limit). Returns 0 when read, 1 when the pipe ended first, 2 when the deadline
   passed, or errno. */
int iq_raw_worker_read(int fd, void *buffer, size_t length, uint64_t deadline_ns);

/* Kills the child when `kill_first`, then waits for it. Returns the signal that ended it (0 if
   it exited), its exit status in `exit_status`. */
int iq_raw_worker_finish(pid_t pid, int kill_first, int *exit_status);
#endif

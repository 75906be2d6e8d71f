#define _GNU_SOURCE
#include "raw_worker.h"

#include "raw_loader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Writes all of `length` bytes, or ends the child: the parent reads a short answer as a failure. */
static void send_all(int fd, const void *bytes, size_t length) {
    const unsigned char *next = bytes;
    while (length > 0) {
        ssize_t written = write(fd, next, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) _exit(3);
        next += written;
        length -= (size_t)written;
    }
}

static void send_message(int fd, int32_t kind, int32_t status, int32_t a, int32_t b, int32_t c, uint64_t length) {
    iq_raw_message message = {kind, status, a, b, c, 0, length};
    send_all(fd, &message, sizeof message);
}

/* LibRaw prints data errors on standard error unless given a handler; this one only notes
   that the file ended early (offset -1), which makes an I/O error a truncation. */
static void note_data_error(void *context, const char *file, const int offset) {
    (void)file;
    if (offset < 0) *(int *)context = 1;
}

/* The child's whole work: never returns. `omp_threads` is libgomp's omp_set_num_threads
   (LibRaw links libgomp), which is not fork-safe: a team of threads the parent's thread had
   does not exist here. One thread per team never waits for them. */
static void run_child(int fd, pid_t parent, const void *data, size_t size, double preview_share,
                      iq_omp_set_num_threads omp_threads) {
    /* Ends with the parent's thread, so a child stuck in LibRaw never outlives a killed server. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(4);
    /* A copy of the parent's memory (other requests' images among it) is never dumped. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    if (omp_threads) omp_threads(1);
    /* A crash handler the parent installed (a crash reporter's, a fuzzer's) acts for the
       parent, not for this child: a crash here ends only the child, which the parent reports. */
    static const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGPIPE};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) signal(fatal[i], SIG_DFL);
    /* libjpeg, inside LibRaw, prints its warnings on standard error; the answer says what matters. */
    int quiet = open("/dev/null", O_WRONLY);
    if (quiet >= 0) {
        dup2(quiet, STDOUT_FILENO);
        dup2(quiet, STDERR_FILENO);
    }
    /* Only the answer's pipe stays open (as descriptor 3): not the parent's listening socket,
       connections, or the pipes of other children, whose end of file this child would hold back. */
    if (fd != 3 && dup2(fd, 3) < 0) _exit(5);
    fd = 3;
    close_range(4, ~0U, 0);

    libraw_data_t *raw = libraw_init(0);
    if (!raw) {
        send_message(fd, IQ_RAW_FAILED, LIBRAW_UNSUFFICIENT_MEMORY, IQ_RAW_STAGE_OPEN, 0, 0, 0);
        _exit(0);
    }
    int ended_early = 0;
    libraw_set_dataerror_handler(raw, note_data_error, &ended_early);
    int status = libraw_open_buffer(raw, (void *)data, size);
    if (status != LIBRAW_SUCCESS) {
        send_message(fd, IQ_RAW_FAILED, status, IQ_RAW_STAGE_OPEN, 0, ended_early, 0);
        _exit(0);
    }
    int width = raw->sizes.width, height = raw->sizes.height;
    send_message(fd, IQ_RAW_OPENED, 0, width, height, raw->sizes.flip, 0);

    if (libraw_unpack_thumb(raw) == LIBRAW_SUCCESS) {
        const libraw_thumbnail_t *thumb = &raw->thumbnail;
        double thumb_long = thumb->twidth > thumb->theight ? thumb->twidth : thumb->theight;
        double sensor_long = width > height ? width : height;
        if (thumb->tformat == LIBRAW_THUMBNAIL_JPEG && thumb->thumb && thumb->tlength > 0 &&
            thumb_long >= preview_share * sensor_long) {
            send_message(fd, IQ_RAW_PREVIEW, 0, thumb->twidth, thumb->theight, 0, thumb->tlength);
            send_all(fd, thumb->thumb, thumb->tlength);
            _exit(0);
        }
    }

    /* Half-size development: camera white balance, 8-bit sRGB, LibRaw's own orientation. */
    raw->params.half_size = 1;
    raw->params.use_camera_wb = 1;
    raw->params.output_bps = 8;
    raw->params.output_color = 1;
    if ((status = libraw_unpack(raw)) != LIBRAW_SUCCESS) {
        send_message(fd, IQ_RAW_FAILED, status, IQ_RAW_STAGE_UNPACK, 0, ended_early, 0);
        _exit(0);
    }
    if ((status = libraw_dcraw_process(raw)) != LIBRAW_SUCCESS) {
        send_message(fd, IQ_RAW_FAILED, status, IQ_RAW_STAGE_PROCESS, 0, ended_early, 0);
        _exit(0);
    }
    libraw_processed_image_t *image = libraw_dcraw_make_mem_image(raw, &status);
    if (!image) {
        send_message(fd, IQ_RAW_FAILED, status, IQ_RAW_STAGE_IMAGE, 0, ended_early, 0);
        _exit(0);
    }
    uint64_t length = (uint64_t)image->width * image->height * 3;
    if (image->type != LIBRAW_IMAGE_BITMAP || image->colors != 3 || image->bits != 8 || image->data_size < length) {
        send_message(fd, IQ_RAW_FAILED, IQ_RAW_UNEXPECTED_IMAGE, IQ_RAW_STAGE_IMAGE, 0, 0, 0);
        _exit(0);
    }
    send_message(fd, IQ_RAW_DEVELOPED, 0, image->width, image->height, 0, length);
    send_all(fd, image->data, length);
    _exit(0);
}

int iq_raw_worker_start(const void *data, size_t size, double preview_share, int *read_fd, pid_t *pid) {
    /* LibRaw is opened here, in the parent: the child only calls it (no dlopen after a fork). */
    if (iq_raw_load() != 0) return ELIBACC;
    iq_omp_set_num_threads omp_threads = iq_raw_omp_set_num_threads();
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return errno;
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        int error = errno;
        close(ends[0]);
        close(ends[1]);
        return error;
    }
    if (child == 0) run_child(ends[1], parent, data, size, preview_share, omp_threads);
    close(ends[1]);
    *read_fd = ends[0];
    *pid = child;
    return 0;
}

static uint64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

int iq_raw_worker_read(int fd, void *buffer, size_t length, uint64_t deadline_ns) {
    unsigned char *next = buffer;
    while (length > 0) {
        int wait_ms = -1;
        if (deadline_ns != 0) {
            uint64_t now = monotonic_ns();
            if (now >= deadline_ns) return 2;
            uint64_t left = (deadline_ns - now + 999999) / 1000000;
            wait_ms = left > 60000 ? 60000 : (int)left;
        }
        struct pollfd ready = {fd, POLLIN, 0};
        int polled = poll(&ready, 1, wait_ms);
        if (polled < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (polled == 0) continue;
        ssize_t got = read(fd, next, length);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return errno;
        }
        if (got == 0) return 1;
        next += got;
        length -= (size_t)got;
    }
    return 0;
}

int iq_raw_worker_finish(pid_t pid, int kill_first, int *exit_status) {
    if (kill_first) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            *exit_status = -1;
            return 0;
        }
    }
    *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

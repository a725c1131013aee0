/* io/io.c: input sources and atomic output files for the CLI and the Python module. */
#include "io/io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h> /* mkstemp */
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int pcd_input_open(pcd_input *in, const char *name, pcd_alloc *al)
{
    memset(in, 0, sizeof *in);
    in->name = name;
    in->al = al;
    if (strcmp(name, "-") == 0) {
        in->fd = 0;
    } else {
        in->fd = open(name, O_RDONLY | O_CLOEXEC);
        if (in->fd < 0) return -1;
    }
    struct stat st;
    if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
        in->is_regular = true;
        in->size = (uint64_t)st.st_size;
    }
    if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(in->fd);
        errno = EISDIR;
        return -1;
    }
    return 0;
}

size_t pcd_input_peek(pcd_input *in, uint8_t *dst, size_t n)
{
    if (in->is_regular) {
        ssize_t r = pread(in->fd, dst, n, 0);
        return r < 0 ? 0 : (size_t)r;
    }
    while (in->peek_len < n && in->peek_len < sizeof in->peek_buf) {
        ssize_t r = read(in->fd, in->peek_buf + in->peek_len, sizeof in->peek_buf - in->peek_len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        in->peek_len += (size_t)r;
    }
    size_t k = n < in->peek_len ? n : in->peek_len;
    memcpy(dst, in->peek_buf, k);
    return k;
}

pcd_status pcd_input_read(void *ud, uint8_t *dst, size_t cap, size_t *got)
{
    pcd_input *in = ud;
    *got = 0;
    if (in->peek_pos < in->peek_len) {
        size_t k = in->peek_len - in->peek_pos < cap ? in->peek_len - in->peek_pos : cap;
        memcpy(dst, in->peek_buf + in->peek_pos, k);
        in->peek_pos += k;
        *got = k;
        in->bytes_read += k;
        return PCD_OK;
    }
    for (;;) {
        ssize_t r = read(in->fd, dst, cap);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return PCD_E_IO;
        *got = (size_t)r;
        /* a pipe written in small pieces: take what is already there too, so that a large
         * record is not decoded again from its start after every few bytes */
        while (!in->is_regular && r > 0 && *got < cap) {
            struct pollfd pf = { in->fd, POLLIN, 0 };
            if (poll(&pf, 1, 0) != 1 || !(pf.revents & POLLIN)) break;
            r = read(in->fd, dst + *got, cap - *got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break; /* an error or the end comes again with the next call */
            *got += (size_t)r;
        }
        in->bytes_read += *got;
        return PCD_OK;
    }
}

int pcd_input_load(pcd_input *in, size_t limit)
{
    if (in->map) return 0;
    if (in->is_regular) {
        if (in->size == 0) {
            /* nothing to map: an empty buffer of our own */
            in->map = pcd_alloc_get(in->al, 1);
            in->map_cap = 1;
            in->map_len = 0;
            if (!in->map) errno = ENOMEM;
            return in->map ? 0 : -1;
        }
        if (in->size > SIZE_MAX) {
            errno = EFBIG;
            return -1;
        }
        void *p = mmap(NULL, (size_t)in->size, PROT_READ, MAP_PRIVATE, in->fd, 0);
        if (p == MAP_FAILED) return -1;
        madvise(p, (size_t)in->size, MADV_SEQUENTIAL);
        in->map = p;
        in->map_len = (size_t)in->size;
        in->mapped = true;
        return 0;
    }
    size_t cap = 1 << 20, len = 0;
    if (limit && cap > limit) cap = limit;
    uint8_t *buf = pcd_alloc_get(in->al, cap);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    for (;;) {
        if (len == cap) {
            if (limit && cap >= limit) {
                /* a pipe larger than the memory cap */
                pcd_alloc_free(in->al, buf, cap);
                errno = EFBIG;
                return -1;
            }
            size_t ncap = limit && cap * 2 > limit ? limit : cap * 2;
            uint8_t *nb = pcd_alloc_resize(in->al, buf, cap, ncap);
            if (!nb) {
                pcd_alloc_free(in->al, buf, cap);
                errno = ENOMEM;
                return -1;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got;
        if (pcd_input_read(in, buf + len, cap - len, &got) != PCD_OK) {
            pcd_alloc_free(in->al, buf, cap);
            return -1;
        }
        if (got == 0) break;
        len += got;
    }
    in->map = buf;
    in->map_len = len;
    in->map_cap = cap;
    return 0;
}

void pcd_input_release(void *ud, uint64_t upto)
{
    pcd_input *in = ud;
    if (!in->mapped || upto > in->map_len) return;
    /* whole pages only; a page read again comes back from the file (the mapping is private
     * and never written) */
    size_t page = (size_t)sysconf(_SC_PAGESIZE), from = in->released / page * page, to = (size_t)upto / page * page;
    if (to > from) madvise(in->map + from, to - from, MADV_DONTNEED);
    if (to > in->released) in->released = to;
}

void pcd_input_close(pcd_input *in)
{
    if (in->map) {
        if (in->mapped) munmap(in->map, in->map_len);
        else pcd_alloc_free(in->al, in->map, in->map_cap);
    }
    if (in->fd > 0) close(in->fd);
    in->map = NULL;
}

static void pending_add(pcd_output_pending *p, char *tmp)
{
    if (!p) return;
    for (int i = 0; i < PCD_OUTPUT_PENDING_MAX; i++)
        if (!p->tmp[i]) {
            p->tmp[i] = tmp;
            return;
        }
}

static void pending_drop(pcd_output_pending *p, const char *tmp)
{
    if (!p) return;
    for (int i = 0; i < PCD_OUTPUT_PENDING_MAX; i++)
        if (p->tmp[i] == tmp) p->tmp[i] = NULL;
}

void pcd_output_pending_unlink(pcd_output_pending *p)
{
    for (int i = 0; i < PCD_OUTPUT_PENDING_MAX; i++)
        if (p->tmp[i]) unlink(p->tmp[i]);
    if (p->dir) rmdir(p->dir);
}

int pcd_output_open(pcd_output *out, const char *name, pcd_output_pending *pending, pcd_alloc *al)
{
    memset(out, 0, sizeof *out);
    out->name = name;
    out->al = al;
    out->pending = pending;
    if (!name || strcmp(name, "-") == 0) {
        out->to_stdout = true;
        out->fd = 1;
        out->fp = stdout;
        return 0;
    }
    /* a device or a pipe (/dev/null, a FIFO) is written in place: renaming a temporary file
     * over it would replace the device node with a regular file */
    struct stat st;
    if (stat(name, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        out->fd = open(name, O_WRONLY | O_CLOEXEC);
        if (out->fd < 0) return -1;
        out->fp = fdopen(out->fd, "wb");
        if (!out->fp) {
            close(out->fd);
            return -1;
        }
        out->in_place = true;
        return 0;
    }
    size_t n = strlen(name);
    out->tmp_cap = n + 16;
    out->tmp = pcd_alloc_get(al, out->tmp_cap);
    if (!out->tmp) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(out->tmp, n + 16, "%s.tmp.XXXXXX", name);
    out->fd = mkstemp(out->tmp);
    if (out->fd < 0) {
        pcd_alloc_free(out->al, out->tmp, out->tmp_cap);
        out->tmp = NULL;
        return -1;
    }
    /* the mode a plain open(O_CREAT, 0666) would give, or the mode of the file replaced */
    if (stat(name, &st) == 0 && S_ISREG(st.st_mode)) {
        fchmod(out->fd, st.st_mode & 07777);
    } else {
        mode_t um = umask(0);
        umask(um);
        fchmod(out->fd, 0666 & ~um);
    }
    pending_add(out->pending, out->tmp);
    out->fp = fdopen(out->fd, "wb");
    if (!out->fp) {
        close(out->fd);
        unlink(out->tmp);
        pending_drop(out->pending, out->tmp);
        pcd_alloc_free(out->al, out->tmp, out->tmp_cap);
        out->tmp = NULL;
        return -1;
    }
    return 0;
}

int pcd_output_commit(pcd_output *out)
{
    if (out->to_stdout) return fflush(stdout) == 0 ? 0 : -1;
    if (out->in_place) {
        int r = fclose(out->fp);
        out->fp = NULL;
        return r == 0 ? 0 : -1;
    }
    int rc = 0;
    if (fflush(out->fp) != 0) rc = -1;
    if (rc == 0 && fsync(fileno(out->fp)) != 0 && errno != EINVAL) rc = -1;
    if (fclose(out->fp) != 0) rc = -1;
    out->fp = NULL;
    if (rc == 0 && rename(out->tmp, out->name) != 0) rc = -1;
    if (rc != 0) unlink(out->tmp);
    pending_drop(out->pending, out->tmp);
    pcd_alloc_free(out->al, out->tmp, out->tmp_cap);
    out->tmp = NULL;
    return rc;
}

void pcd_output_abort(pcd_output *out)
{
    if (out->to_stdout) {
        fflush(stdout);
        return;
    }
    if (out->fp) fclose(out->fp);
    out->fp = NULL;
    if (out->tmp) {
        unlink(out->tmp);
        pending_drop(out->pending, out->tmp);
        pcd_alloc_free(out->al, out->tmp, out->tmp_cap);
        out->tmp = NULL;
    }
}

pcd_status pcd_output_write(void *ud, const uint8_t *p, size_t n)
{
    pcd_output *out = ud;
    if (n && fwrite(p, 1, n, out->fp) != n) return PCD_E_IO;
    out->written += n;
    return PCD_OK;
}

pcd_status pcd_output_patch(void *ud, uint64_t off, const uint8_t *p, size_t n)
{
    pcd_output *out = ud;
    if (out->to_stdout) return PCD_E_IO;
    if (fflush(out->fp) != 0) return PCD_E_IO;
    ssize_t w = pwrite(fileno(out->fp), p, n, (off_t)off);
    return w == (ssize_t)n ? PCD_OK : PCD_E_IO;
}

/* ---- output directories ------------------------------------------------------------------ */

static char *dup_al(pcd_alloc *al, const char *z, size_t n, size_t cap)
{
    char *d = pcd_alloc_get(al, cap);
    if (!d) return NULL;
    memcpy(d, z, n);
    d[n] = 0;
    return d;
}

int pcd_outdir_open(pcd_outdir *d, const char *name, pcd_output_pending *pending, pcd_alloc *al)
{
    memset(d, 0, sizeof *d);
    d->al = al;
    d->pending = pending;
    size_t n = strlen(name);
    while (n > 1 && name[n - 1] == '/') n--;
    if (!n) {
        errno = ENOENT;
        return -1;
    }
    struct stat st;
    char *z = dup_al(al, name, n, n + 1);
    if (!z) {
        errno = ENOMEM;
        return -1;
    }
    d->name = z;
    d->name_cap = n + 1;
    if (stat(d->name, &st) == 0 && S_ISCHR(st.st_mode)) {
        d->device = true;
        return 0;
    }
    if (lstat(d->name, &st) == 0) {
        /* only an empty directory is replaced: nothing of what a user had there is lost */
        bool empty = false;
        if (S_ISDIR(st.st_mode)) {
            DIR *dd = opendir(d->name);
            if (dd) {
                struct dirent *e;
                empty = true;
                while (empty && (e = readdir(dd)))
                    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) empty = false;
                closedir(dd);
            }
        }
        if (!empty) {
            pcd_alloc_free(al, d->name, d->name_cap);
            d->name = NULL;
            errno = EEXIST;
            return -1;
        }
    }
    d->tmp_cap = n + 16;
    d->tmp = pcd_alloc_get(al, d->tmp_cap);
    if (!d->tmp) {
        pcd_alloc_free(al, d->name, d->name_cap);
        d->name = NULL;
        errno = ENOMEM;
        return -1;
    }
    snprintf(d->tmp, d->tmp_cap, "%s.tmp.XXXXXX", d->name);
    if (!mkdtemp(d->tmp)) {
        int e = errno;
        pcd_alloc_free(al, d->tmp, d->tmp_cap);
        pcd_alloc_free(al, d->name, d->name_cap);
        d->tmp = d->name = NULL;
        errno = e;
        return -1;
    }
    /* the mode mkdir(0777) would give (mkdtemp's is 0700) */
    mode_t um = umask(0);
    umask(um);
    chmod(d->tmp, 0777 & ~um);
    if (pending) pending->dir = d->tmp;
    return 0;
}

int pcd_outdir_part(pcd_outdir *d, const char *part, pcd_output **out)
{
    if (d->n_parts == PCD_OUTDIR_MAX_PARTS || strchr(part, '/') || !*part) {
        errno = EINVAL;
        return -1;
    }
    pcd_output *o = &d->parts[d->n_parts];
    memset(o, 0, sizeof *o);
    if (d->device) {
        o->name = d->name;
        o->fd = open(d->name, O_WRONLY | O_CLOEXEC);
        if (o->fd < 0) return -1;
        o->fp = fdopen(o->fd, "wb");
        if (!o->fp) {
            int e = errno;
            close(o->fd);
            errno = e;
            return -1;
        }
        o->in_place = true;
        d->n_parts++;
        *out = o;
        return 0;
    }
    size_t n = strlen(d->tmp) + 1 + strlen(part) + 1;
    o->tmp = pcd_alloc_get(d->al, n);
    if (!o->tmp) {
        errno = ENOMEM;
        return -1;
    }
    o->tmp_cap = n;
    o->al = d->al;
    snprintf(o->tmp, n, "%s/%s", d->tmp, part);
    o->name = o->tmp;
    mode_t um = umask(0);
    umask(um);
    o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666 & ~um);
    if (o->fd < 0) {
        int e = errno;
        pcd_alloc_free(d->al, o->tmp, o->tmp_cap);
        o->tmp = NULL;
        errno = e;
        return -1;
    }
    pending_add(d->pending, o->tmp);
    o->fp = fdopen(o->fd, "wb");
    if (!o->fp) {
        int e = errno;
        close(o->fd);
        unlink(o->tmp);
        pending_drop(d->pending, o->tmp);
        pcd_alloc_free(d->al, o->tmp, o->tmp_cap);
        o->tmp = NULL;
        errno = e;
        return -1;
    }
    o->in_place = true; /* the directory is what is renamed */
    d->n_parts++;
    *out = o;
    return 0;
}

static void outdir_free(pcd_outdir *d, bool remove)
{
    for (size_t i = 0; i < d->n_parts; i++) {
        pcd_output *o = &d->parts[i];
        if (o->fp) fclose(o->fp);
        o->fp = NULL;
        if (!o->tmp) continue; /* (a device's) */
        if (remove) unlink(o->tmp);
        pending_drop(d->pending, o->tmp);
        pcd_alloc_free(d->al, o->tmp, o->tmp_cap);
        o->tmp = NULL;
    }
    d->n_parts = 0;
    if (d->tmp) {
        if (remove) rmdir(d->tmp);
        if (d->pending && d->pending->dir == d->tmp) d->pending->dir = NULL;
        pcd_alloc_free(d->al, d->tmp, d->tmp_cap);
        d->tmp = NULL;
    }
    if (d->name) pcd_alloc_free(d->al, d->name, d->name_cap);
    d->name = NULL;
}

int pcd_outdir_commit(pcd_outdir *d)
{
    int rc = 0;
    for (size_t i = 0; i < d->n_parts; i++) {
        pcd_output *o = &d->parts[i];
        if (fflush(o->fp) != 0) rc = -1;
        if (rc == 0 && !d->device && fsync(fileno(o->fp)) != 0 && errno != EINVAL) rc = -1;
        if (fclose(o->fp) != 0) rc = -1;
        o->fp = NULL;
    }
    /* rename(2) replaces an empty directory (pcd_outdir_open made sure it is one) */
    if (rc == 0 && !d->device && rename(d->tmp, d->name) != 0) rc = -1;
    int e = errno;
    outdir_free(d, rc != 0);
    errno = e;
    return rc;
}

void pcd_outdir_abort(pcd_outdir *d)
{
    outdir_free(d, true);
}

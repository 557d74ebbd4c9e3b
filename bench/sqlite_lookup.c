/* SQLite's own cost of one random row lookup in a table laid out as the
 * store's items tables are (WITHOUT ROWID, PRIMARY KEY (hk, rk), the item's
 * JSON beside), outside Python: what scenario B's read of the row an ADD
 * changes costs SQLite at 10,000 items against 1,000,000.
 *
 *   gcc -O2 -o /tmp/sqlite_lookup bench/sqlite_lookup.c -lsqlite3
 *   /tmp/sqlite_lookup DB ITEMS PAGE_SIZE CACHE_KB LOOKUPS BUILD [TOUCH_KB [MMAP_MB [HASHED]]]
 *
 * BUILD 1 makes DB (k0..k{ITEMS-1}, page size PAGE_SIZE, WAL) first; 0 opens
 * the one made before. Then three passes of LOOKUPS lookups at random keys,
 * each printing the thread's CPU ns per lookup, with a page cache of
 * CACHE_KB. TOUCH_KB: between two lookups, write one byte in every 64 of a
 * buffer of this size, as a server's Python does to the CPU's caches
 * between two requests' reads (not counted: each pass is timed again
 * without the lookups, and that time taken off). MMAP_MB: PRAGMA mmap_size
 * (0, the store's, reads every page not in the page cache with a pread).
 * HASHED 1: the layout compared, not the store's: a rowid table keyed by a
 * 64-bit hash of (hk, rk), the row's hk and rk compared after the lookup
 * (a collision would need a probe; none in these keys). Its interior pages
 * hold rowids only, but it keeps no (hk, rk) order, which Query and Scan
 * read in. A database is built and read with the same HASHED.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void run(sqlite3 *db, const char *sql) {
    char *error = 0;
    if (sqlite3_exec(db, sql, 0, 0, &error) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, error);
        exit(1);
    }
}

/* The store's encoding of the string key "k<i>": its bytes, then 0x00 0x00. */
static int key(char *out, long i) {
    int n = sprintf(out, "k%ld", i);
    out[n] = out[n + 1] = 0;
    return n + 2;
}

/* The HASHED layout's rowid: FNV-1a of the key, then a 64-bit mix. */
static int64_t hashed(const char *k, int n) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) {
        h ^= (unsigned char)k[i];
        h *= 1099511628211ULL;
    }
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return (int64_t)h;
}

static void build(sqlite3 *db, long items, int page_size, int hash) {
    char sql[64], k[32], item[96];
    sqlite3_stmt *insert;
    sprintf(sql, "PRAGMA page_size=%d", page_size);
    run(db, sql);
    run(db, "PRAGMA journal_mode=WAL");
    run(db, hash ? "CREATE TABLE items_1 (id INTEGER PRIMARY KEY, hk BLOB NOT NULL, "
                   "rk BLOB NOT NULL, item BLOB NOT NULL)"
                 : "CREATE TABLE items_1 (hk BLOB NOT NULL, rk BLOB NOT NULL, item BLOB NOT NULL, "
                   "PRIMARY KEY (hk, rk)) WITHOUT ROWID");
    run(db, "BEGIN");
    sqlite3_prepare_v2(db, hash ? "INSERT INTO items_1(hk, rk, item, id) VALUES (?, ?, ?, ?)"
                                : "INSERT INTO items_1(hk, rk, item) VALUES (?, ?, ?)",
                       -1, &insert, 0);
    for (long i = 0; i < items; i++) {
        int kn = key(k, i);
        int in = sprintf(item, "{\"pk\":{\"S\":\"k%ld\"},\"play_count\":{\"N\":\"0\"}}", i);
        sqlite3_bind_blob(insert, 1, k, kn, SQLITE_STATIC);
        sqlite3_bind_blob(insert, 2, "", 0, SQLITE_STATIC);
        sqlite3_bind_blob(insert, 3, item, in, SQLITE_STATIC);
        if (hash)
            sqlite3_bind_int64(insert, 4, hashed(k, kn));
        sqlite3_step(insert);
        sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    run(db, "COMMIT");
    run(db, "PRAGMA wal_checkpoint(TRUNCATE)");
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: %s DB ITEMS PAGE_SIZE CACHE_KB LOOKUPS BUILD "
                "[TOUCH_KB [MMAP_MB [HASHED]]]\n", argv[0]);
        return 2;
    }
    long items = atol(argv[2]), lookups = atol(argv[5]);
    long touch = argc > 7 ? atol(argv[7]) * 1024 : 0;
    long long mmap_mb = argc > 8 ? atoll(argv[8]) : 0;
    int hash = argc > 9 ? atoi(argv[9]) : 0;
    char *buffer = touch ? calloc(touch, 1) : 0;
    char sql[96], k[32];
    sqlite3 *db;
    sqlite3_stmt *select;
    sqlite3_open(argv[1], &db);
    if (atoi(argv[6]))
        build(db, items, atoi(argv[3]), hash);
    sprintf(sql, "PRAGMA cache_size=-%d", atoi(argv[4]));
    run(db, sql);
    sprintf(sql, "PRAGMA mmap_size=%lld", mmap_mb * 1024 * 1024);
    run(db, sql);
    sqlite3_prepare_v2(db, hash ? "SELECT item, hk, rk FROM items_1 WHERE id = ?"
                                : "SELECT item FROM items_1 WHERE hk = ? AND rk = ?",
                       -1, &select, 0);
    srand(1);
    run(db, "BEGIN");
    for (int pass = 0; pass < 3; pass++) {
        /* the loop with lookups, less the same loop without (keys, touching) */
        double spent = 0;
        long bytes = 0;
        for (int with = 1; with >= 0; with--) {
            double began = cpu();
            for (long j = 0; j < lookups; j++) {
                int kn = key(k, ((long)rand() * RAND_MAX + rand()) % items);
                if (with && hash) {
                    sqlite3_bind_int64(select, 1, hashed(k, kn));
                    if (sqlite3_step(select) == SQLITE_ROW && sqlite3_column_bytes(select, 1) == kn
                        && !memcmp(sqlite3_column_blob(select, 1), k, kn)
                        && sqlite3_column_bytes(select, 2) == 0)
                        bytes += sqlite3_column_bytes(select, 0);
                    sqlite3_reset(select);
                } else if (with) {
                    sqlite3_bind_blob(select, 1, k, kn, SQLITE_STATIC);
                    sqlite3_bind_blob(select, 2, "", 0, SQLITE_STATIC);
                    if (sqlite3_step(select) == SQLITE_ROW)
                        bytes += sqlite3_column_bytes(select, 0);
                    sqlite3_reset(select);
                }
                for (long at = 0; at < touch; at += 64)
                    buffer[at]++;
            }
            spent += with ? cpu() - began : began - cpu();
        }
        printf("%ld items%s, page size %s, cache %s KB, mmap %lld MB, touching %ld KB: pass %d: "
               "%.0f ns a lookup (%ld bytes read)\n", items, hash ? " (hashed rowid)" : "",
               argv[3], argv[4], mmap_mb, touch / 1024, pass, spent / lookups * 1e9, bytes);
    }
    run(db, "COMMIT");
    sqlite3_close(db);
    free(buffer);
    return 0;
}

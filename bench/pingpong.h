// pingpong.h: the C side of latmap survey (built only with the mpi tag).
#ifndef LATMAP_PINGPONG_H
#define LATMAP_PINGPONG_H

int lm_init(void);
int lm_rank(void);
int lm_size(void);
double lm_wtick(void);
void lm_library_version(char *buf, int cap);
void lm_pingpong(int peer, int lo, void *buf, int size, int warm, int ntimed, double *out);
int lm_wait(long spin_ns, long min_ns, long max_ns);
int lm_signal(int peer);
int lm_await(int peer, long spin_ns, long min_ns, long max_ns);
double lm_exchange(const int *dst, int nd, const int *src, int ns, void *sbuf, void *rbuf, int size, int count, int window);
int lm_gather_sizes(int len, int *lens);
int lm_gatherv(const void *sbuf, int len, void *rbuf, const int *lens, const int *displs);
int lm_bcast_len(int *len);
int lm_bcast(void *buf, int len);
int lm_cpu(void);
int lm_affinity(unsigned char *mask, int cap);
void lm_abort(int code);
int lm_finalize(void);

#endif

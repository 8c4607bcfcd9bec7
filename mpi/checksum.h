/* Checksums of the input boxes a rank read (clip-mpi's check that every rank read one version of
 * each input): XXH64 (xxHash's 64-bit hash, seed 0; https://github.com/Cyan4973/xxHash,
 * doc/xxhash_spec.md), a well-known non-cryptographic hash that runs at memory speed. It finds
 * accidental changes (a file rewritten underneath the run), not deliberate collisions. */
#ifndef CLIP_MPI_CHECKSUM_H
#define CLIP_MPI_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* XXH64 of n bytes at p, seed 0. */
uint64_t checksum(const void *p, size_t n);

#endif

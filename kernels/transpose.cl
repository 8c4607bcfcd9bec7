/* transpose: C = A.' (or A' with CONJ) of every 2-D slice, A m x n, C n x m, column-major (see
 * processes/transpose.c). A work-group moves a TILE x TILE block through local memory: it
 * reads along A's columns and writes along C's, so both global accesses are contiguous runs
 * of TILE elements; the tile's extra column keeps the transposed reads of local memory off a
 * single bank. Each of the TILE x ROWS work-items moves TILE/ROWS elements.
 *
 * Build options: TILE, ROWS (TILE a multiple of ROWS), CONJ (1: conjugate, complex only). */

__kernel __attribute__((reqd_work_group_size(TILE, ROWS, 1)))
void transpose(__global const elem_t *a, __global elem_t *c, const uint m, const uint n) {
    __local elem_t tile[TILE][TILE + 1];
    const uint lx = get_local_id(0), ly = get_local_id(1);
    const uint i0 = get_group_id(0) * TILE, j0 = get_group_id(1) * TILE;
    const ulong off = (ulong)get_global_id(2) * m * n;
    a += off, c += off;
    for (uint r = 0; r < TILE; r += ROWS) {
        const uint i = i0 + lx, j = j0 + ly + r;
        if (i < m && j < n) tile[ly + r][lx] = a[i + (ulong)m * j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint r = 0; r < TILE; r += ROWS) {
        const uint j = j0 + lx, i = i0 + ly + r;
        if (i < m && j < n) {
            elem_t v = tile[lx][ly + r];
#if CONJ
            v.y = -v.y;
#endif
            c[j + (ulong)n * i] = v;
        }
    }
}

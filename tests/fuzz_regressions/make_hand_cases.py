#!/usr/bin/env python3
"""Writes the hand-made hostile MAT files of this folder (mat-hand-*.mat). Each declares a
length or count that matio would trust: lib/io_mat_check.c must reject it before matio reads.
Run from this folder: python3 make_hand_cases.py"""
import struct
import zlib

HEADER = b'MATLAB 5.0 MAT-file, clip hostile test case'.ljust(116) + b'\0' * 8 + \
    struct.pack('<H', 0x0100) + b'IM'


def tag(t, n):
    return struct.pack('<II', t, n)


def sub(t, data):
    """A subelement in the normal format, padded to 8 bytes."""
    return tag(t, len(data)) + data + b'\0' * (-len(data) % 8)


def small(t, data):
    """A subelement in the small format (at most 4 bytes of data)."""
    return struct.pack('<HH', t, len(data)) + data.ljust(4, b'\0')


def array(cls, dims, name, parts, flags=0):
    content = sub(6, struct.pack('<II', cls | flags, 0)) + \
        sub(5, struct.pack('<%di' % len(dims), *dims)) + \
        (small(1, name) if 0 < len(name) <= 4 else sub(1, name)) + b''.join(parts)
    return tag(14, len(content)) + content


def compressed(element):
    z = zlib.compress(element)
    return tag(15, len(z)) + z


def v5(name, *elements):
    with open(name, 'wb') as f:
        f.write(HEADER + b''.join(elements))


def one(value):
    return sub(9, struct.pack('<d', value))


# A cell array of 65536 x 65536 cells in 48 bytes: matio would allocate and loop 2^32 times.
v5('mat-hand-cell-count.mat', array(1, [65536, 65536], b'c', []), array(6, [1, 1], b'x', [one(1)]))

# A 1000000 x 1 struct with 4 fields and no field values.
v5('mat-hand-struct-fields.mat',
   array(2, [1000000, 1], b's', [small(5, struct.pack('<i', 32)), sub(1, b'\0' * 128)]))

# Compressed: the inflated array name claims 0xf8000006 bytes.
inner = sub(6, struct.pack('<II', 6, 0)) + sub(5, struct.pack('<ii', 1, 1)) + \
    tag(1, 0xf8000006) + b'name' + b'\0' * 4 + one(2)
v5('mat-hand-z-name-length.mat', compressed(tag(14, len(inner)) + inner))

# Compressed: a few dozen bytes that claim to inflate to 4 GB, holding a 60000 x 60000 array.
inner = sub(6, struct.pack('<II', 6, 0)) + sub(5, struct.pack('<ii', 60000, 60000)) + \
    small(1, b'x') + tag(9, 0xfffff000)
v5('mat-hand-z-ratio.mat', compressed(tag(14, 0xfffffff0) + inner))

# 300 x 300 doubles declared, one stored: matio would read 720000 bytes past the element.
v5('mat-hand-data-size.mat', array(6, [300, 300], b'x', [one(1)]))

# Complex flag without an imaginary part.
v5('mat-hand-imag-missing.mat', array(6, [1, 1], b'z', [one(1)], flags=0x800))

# Opaque: matio takes the 8 bytes after the second tag for the name tag (here 4 GB of name).
content = sub(6, struct.pack('<II', 17, 0)) + sub(1, struct.pack('<II', 1, 0xf0000000)) + \
    sub(1, b'MCOS') + sub(1, b'cls')
v5('mat-hand-opaque-name.mat', tag(14, len(content)) + content, array(6, [1, 1], b'x', [one(1)]))

# Cells nested 100 deep.
el = array(6, [1, 1], b'', [one(3)])
for _ in range(99):
    el = array(1, [1, 1], b'', [el])
v5('mat-hand-nested-depth.mat', array(1, [1, 1], b'c', [el]))

# v4: a variable name of 2^30 bytes.
with open('mat-hand-v4-name.mat', 'wb') as f:
    f.write(struct.pack('<iiiii', 0, 1, 1, 0, 1 << 30) + b'x\0' + struct.pack('<d', 1))

# v4: a name without its NUL (matio would read past it).
with open('mat-hand-v4-nonul.mat', 'wb') as f:
    f.write(struct.pack('<iiiii', 0, 1, 1, 0, 2) + b'xy' + struct.pack('<d', 1))

# Fuzzer finding, minimised by hand (libFuzzer cannot minimise a leak): a function handle
# holding one nested array and nothing numeric at the top. matio's Mat_VarFree leaked the nested
# array it had read.
v5('mat-function-leak.mat', array(16, [1, 1], b'f', [array(6, [1, 1], b'', [one(5)])]))

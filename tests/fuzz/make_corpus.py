#!/usr/bin/env python3
"""Build the seed corpora of the fuzz targets from the shared corpus, tests/data and samples.

usage: make_corpus.py OUT_DIR [--cli PATH] SOURCE_DIR...

Writes OUT_DIR/<target>/<sha1 of the bytes> (so running it again changes nothing):
  asdf_file, asdf_to_fits   every *.asdf file; plus the ASDF files `fitsasdf convert` makes of
                            the FITS files (fits lists) when --cli is given
  fits_to_asdf              every *.fits / *.fits.gz / *.fz file; fpack's tile-compressed images
                            and table of mutate_tiles.py (every algorithm, also converted
                            for asdf_to_fits and asdf_file); plus FITS files
                            carrying an ASDF extension, made by `fitsasdf convert` from the ASDF
                            files
  yaml_tree                 the YAML tree of every ASDF file, and the *.yaml files
  block_index               a selector byte then the tail of every ASDF file from its block index
                            (or its last block), and a few hand-made indexes
"""
import hashlib
import os
import subprocess
import sys
import tempfile


def put(out, target, data):
    folder = os.path.join(out, target)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, hashlib.sha1(data).hexdigest())
    if not os.path.exists(path):
        with open(path, 'wb') as f:
            f.write(data)


def yaml_tree(data):
    start = data.find(b'%YAML')
    if start < 0:
        return None
    end = data.find(b'\n...', start)
    return data[start:] if end < 0 else data[start:end + 5]


def index_tail(data):
    at = data.rfind(b'#ASDF BLOCK INDEX')
    if at < 0:
        at = data.rfind(b'\xd3BLK')
    return None if at < 0 else data[at:]


def convert_all(out, cli, fits_files, asdf_files, tmp):
    """Each file converted both ways gives seeds that reach the deeper code: fits lists for
    ASDF -> FITS, ASDF-in-FITS files for FITS -> ASDF. Failures are skipped."""
    for n, path in enumerate(fits_files + asdf_files):
        is_fits = path in fits_files
        dest = os.path.join(tmp, 'converted-%d.%s' % (n, 'asdf' if is_fits else 'fits'))
        r = subprocess.run([cli, 'convert', path, '-o', dest, '--no-fsync', '-q'],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        if r.returncode == 0 and os.path.exists(dest):
            data = open(dest, 'rb').read()
            if len(data) <= 1 << 20:
                put(out, 'asdf_to_fits' if is_fits else 'fits_to_asdf', data)
                if is_fits:
                    put(out, 'asdf_file', data)
            os.remove(dest)


def main(argv):
    out = argv[1]
    cli = None
    sources = []
    i = 2
    while i < len(argv):
        if argv[i] == '--cli':
            cli = argv[i + 1]
            i += 2
        else:
            sources.append(argv[i])
            i += 1
    asdf_files, fits_files, yaml_files = [], [], []
    for src in sources:
        for root, _, names in os.walk(src):
            for name in sorted(names):
                path = os.path.join(root, name)
                if name.endswith('.asdf'):
                    asdf_files.append(path)
                elif name.endswith(('.fits', '.fits.gz', '.fz', '.fit')):
                    fits_files.append(path)
                elif name.endswith('.yaml'):
                    yaml_files.append(path)
    for path in asdf_files:
        data = open(path, 'rb').read()
        put(out, 'asdf_file', data)
        put(out, 'asdf_to_fits', data)
        tree = yaml_tree(data)
        if tree:
            put(out, 'yaml_tree', tree)
        tail = index_tail(data)
        if tail:
            put(out, 'block_index', b'\x00' + tail)
    for path in yaml_files:
        data = open(path, 'rb').read()
        if len(data) <= 65536:
            put(out, 'yaml_tree', data)
    with tempfile.TemporaryDirectory(prefix='fitsasdf-seeds-') as tmp:
        # Tile-compressed images and a table made by fpack with every algorithm (RICE_1, GZIP_1,
        # GZIP_2, HCOMPRESS_1, PLIO_1, edge tiles), so that every tile decoder is reached (and,
        # converted below, every compressor on the way back).
        try:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import mutate_tiles
            fits_files += mutate_tiles.inputs(tmp)
        except (OSError, subprocess.CalledProcessError) as e:
            print('no fpack seeds: %s' % e, file=sys.stderr)
        for path in fits_files:
            put(out, 'fits_to_asdf', open(path, 'rb').read())
        if cli:
            convert_all(out, cli, fits_files, asdf_files, tmp)
    for text in (b'#ASDF BLOCK INDEX\n%YAML 1.1\n---\n- 12\n- 345\n...\n',
                 b'#ASDF BLOCK INDEX\n%YAML 1.1\n--- []\n...\n',
                 b'#ASDF BLOCK INDEX\n%YAML 1.1\n---\n- 18446744073709551615\n...\n\0\0'):
        put(out, 'block_index', b'\x00' + text)
    for target in ('asdf_file', 'asdf_to_fits', 'fits_to_asdf', 'yaml_tree', 'block_index'):
        folder = os.path.join(out, target)
        count = len(os.listdir(folder)) if os.path.isdir(folder) else 0
        print('corpus %-13s %4d seeds' % (target, count))


if __name__ == '__main__':
    main(sys.argv)

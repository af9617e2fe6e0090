#!/usr/bin/python3
"""Check ASDF files fitsasdf made of FITS files against astropy's reading of those files
(tests/interop/fits_fidelity_test.cc, issue 21).

Usage: check_fidelity.py FITS ASDF [FITS ASDF ...]

For each pair: python asdf opens the ASDF with schema validation and asdf-astropy's converters
on, and any warning of python asdf's own (AsdfWarning and its kind) is a failure; astropy opens
the FITS file (its own warnings about the original, such as extra bytes, are expected and left
out). Then, HDU by HDU: the item's header list read raw equals astropy's [keyword, value,
comment] cards of the original; the HDU asdf-astropy rebuilt holds astropy's data (same shape,
same bytes; an HDU astropy reads without data may come back as a zero-size array); and the HDU
count is the same. Prints one JSON object {ASDF: {"ok", "problems": [...]}}.
"""

import json
import sys
import warnings

import asdf
import numpy as np
from astropy.io import fits

from compare_fits_asdf import cards, first_diff, raw_cards


def same_data(a, b):
    """Equal bit for bit: arrays as big-endian bytes, tables column by column."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.names is None or b.dtype.names is None:
        big = lambda x: np.ascontiguousarray(x.astype(x.dtype.newbyteorder(">"))).tobytes()
        return a.dtype.names is None and b.dtype.names is None and big(a) == big(b)
    return [n.lower() for n in a.dtype.names] == [n.lower() for n in b.dtype.names] and all(
        same_data(a[x], b[y]) for x, y in zip(a.dtype.names, b.dtype.names))


def check(fits_path, asdf_path):
    problems = []
    with asdf.config_context() as cfg:
        cfg.validate_on_read = False
        with asdf.open(asdf_path, _force_raw_types=True) as raw_af:
            headers = [raw_cards(dict(item)["header"]) for item in raw_af.tree["fits"]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with asdf.open(asdf_path, lazy_load=False, copy_arrays=True) as af:
            ours = af["fits"]
            mine = [w for w in caught if "asdf" in w.category.__module__.lower()
                    or w.category.__name__.startswith("Asdf")]
            problems += [f"{w.category.__name__}: {w.message}" for w in mine]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with fits.open(fits_path, do_not_scale_image_data=True) as ref:
                    if len(ours) != len(ref):
                        problems.append(f"{len(ours)} HDUs, astropy reads {len(ref)}")
                    for i, (h, r) in enumerate(zip(ours, ref)):
                        want = cards(r.header)
                        if want != headers[i]:
                            problems.append(f"HDU {i + 1}: cards differ at {first_diff(want, headers[i])}")
                        if r.data is None:
                            if h.data is not None and np.asarray(h.data).size != 0:
                                problems.append(f"HDU {i + 1}: data where astropy reads none")
                            continue
                        if h.data is None:
                            problems.append(f"HDU {i + 1}: no data; astropy reads {r.data.shape}")
                        elif np.asarray(h.data).shape != np.asarray(r.data).shape:
                            problems.append(f"HDU {i + 1}: shape {np.asarray(h.data).shape}, "
                                            f"astropy {np.asarray(r.data).shape}")
                        elif not same_data(h.data, r.data):
                            problems.append(f"HDU {i + 1}: data differ from astropy's")
    return {"ok": not problems, "problems": problems}


def main(argv):
    out = {}
    for fits_path, asdf_path in zip(argv[1::2], argv[2::2]):
        try:
            out[asdf_path] = check(fits_path, asdf_path)
        except Exception as e:  # reported; the C++ test decides
            out[asdf_path] = {"ok": False, "problems": [f"{type(e).__name__}: {e}"]}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)

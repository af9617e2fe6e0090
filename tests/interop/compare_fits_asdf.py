#!/usr/bin/python3
"""Compare FITS files with the ASDF files fitsasdf made of them, through the reference tools.

Usage: compare_fits_asdf.py [--physical] [--details] FITS ASDF [FITS ASDF ...]

For each pair, open FITS with astropy twice (as stored: do_not_scale_image_data=True, and
scaled) and compare HDU by HDU:
  cards        the `fits` item's header list as written in the ASDF tree (read raw) equals
               astropy's [keyword, value, comment] list of the original: every card carried
  hdul_cards   the HDUList asdf-astropy builds (schema validation on, every warning recorded)
               has the cards astropy's own HDU constructor gives for the original header and
               data (astropy drops and adds some cards, e.g. EXTEND, when it builds an HDU)
  data         the HDUList's data equal bit for bit (NaN payloads included) to astropy's scaled
               data when the ASDF holds unsigned integers made from a BZERO offset, else to the
               stored data
Prints one JSON object {ASDF: {"ok", "hdus": [{"index", "cards_equal", "hdul_cards_equal",
"first_card_diff", "data_equal", "data_note"}], "warnings": [...], "native": {key: {"unit",
"md5"}}, "error"}}.
Options:
  --physical   the ASDF was written with --scaling physical: every HDU's data must equal
               astropy's scaled data (float32 for BITPIX 8/16, float64 for 32/64, BLANK as NaN)
  --details    also report "fits_tag" (the tag of the `fits` list as written), per HDU
               "has_data", "bunit", "vounit" (astropy's Unit(BUNIT, format="fits") as VOUnit,
               null with "unit_error" when astropy cannot parse it), "item_keys", "dtype" (of the
               HDUList's data), "astropy_dtype" (of astropy's scaled data),
               "card_values_equal" (the keywords and values equal astropy's, comments aside),
               "comment_diffs" (the keywords whose comment alone differs) and, for a
               tile-compressed image, "compressed_cards_equal" (the item's compressed_header
               equals the cards of the compressed table as stored, read by astropy with
               disable_image_compression=True); per native entry "quantity" and "dtype"
Runs with Debian's /usr/bin/python3 (asdf 2.14, asdf-astropy, astropy 5.2.1).
"""

import hashlib
import json
import math
import sys
import warnings

import asdf
import astropy.units as u
import numpy as np
from astropy.io import fits


def norm(v):
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, fits.card.Undefined) or v is None:
        return None
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, complex):
        return [v.real, v.imag]
    return v


def cards(header):
    return [[c.keyword, norm(c.value), c.comment] for c in header.cards]


def raw_cards(item_header):
    out = []
    for c in item_header:
        c = list(c)
        if not c:  # a blank card; astropy shows it as ('', '', '')
            out.append(["", "", ""])
            continue
        value = c[1] if len(c) > 1 else None
        if hasattr(value, "_tag") and str(getattr(value, "_tag", "")).endswith("complex-1.0.0"):
            value = complex(str(value).replace("i", "j").replace("I", "J"))
        keyword = c[0] if c else ""
        if keyword.startswith("HIERARCH "):  # kept in the tree; astropy's view drops it
            keyword = keyword[len("HIERARCH "):]
        out.append([keyword, norm(value), c[2] if len(c) > 2 else ""])
    return out


def first_diff(want, got):
    for k in range(max(len(want), len(got))):
        x = want[k] if k < len(want) else None
        y = got[k] if k < len(got) else None
        if x != y:
            return [k, x, y]
    return None


def same_bits(a, b):
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return False, f"shape {a.shape} != {b.shape}"
    if a.dtype.newbyteorder("=") != b.dtype.newbyteorder("="):
        return False, f"dtype {a.dtype} != {b.dtype}"
    le = lambda x: np.ascontiguousarray(x.astype(x.dtype.newbyteorder("<"))).tobytes()
    return le(a) == le(b), ""


def md5(a):
    a = np.asarray(a)
    return hashlib.md5(np.ascontiguousarray(a.astype(a.dtype.newbyteorder("<"))).tobytes()).hexdigest()


def expected_vounit(bunit):
    """astropy's reading of BUNIT as a FITS unit, written as VOUnit: (vounit, error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return u.Unit(bunit, format="fits").to_string("vounit"), None
        except Exception as e:  # noqa: BLE001 -- any refusal means "not a FITS unit"
            return None, f"{type(e).__name__}: {e}"


def details(out, item, ours, raw, scaled, fits_path, index):
    out["item_keys"] = sorted(item.keys())
    out["has_data"] = raw.data is not None
    bunit = raw.header.get("BUNIT")
    out["bunit"] = bunit if isinstance(bunit, str) and bunit.strip() else None
    if out["bunit"] is not None:
        out["vounit"], error = expected_vounit(bunit)
        if error:
            out["unit_error"] = error
    else:
        out["vounit"] = None
    out["dtype"] = None if ours.data is None else np.asarray(ours.data).dtype.str
    out["astropy_dtype"] = None if scaled.data is None else np.asarray(scaled.data).dtype.str
    want, got = cards(raw.header), raw_cards(item["header"])
    out["card_values_equal"] = [w[:2] for w in want] == [g[:2] for g in got]
    out["comment_diffs"] = [w[0] for w, g in zip(want, got) if w[:2] == g[:2] and w[2] != g[2]]
    if "compressed_header" in item:
        with fits.open(fits_path, disable_image_compression=True) as table:
            stored = cards(table[index].header)
        out["compressed_cards_equal"] = stored == raw_cards(item["compressed_header"])


def compare(fits_path, asdf_path, physical=False, with_details=False):
    rec = {"hdus": [], "native": {}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with asdf.config_context() as cfg:
                cfg.validate_on_read = False
                with asdf.open(asdf_path, _force_raw_types=True) as raw_af:
                    items = [dict(h) for h in raw_af.tree["fits"]]
                    raw_headers = [raw_cards(h["header"]) for h in items]
                    if with_details:
                        rec["fits_tag"] = getattr(raw_af.tree["fits"], "_tag", None)
            caught.clear()  # only warnings of the user-style open below count
            with asdf.open(asdf_path, lazy_load=False, copy_arrays=True) as af, \
                    fits.open(fits_path, do_not_scale_image_data=True) as raw, \
                    fits.open(fits_path) as scaled:
                ours = af["fits"]
                rebuilt = []
                for i, (h, r, s) in enumerate(zip(ours, raw, scaled)):
                    out = {"index": i + 1}
                    want = cards(r.header)
                    out["cards_equal"] = want == raw_headers[i]
                    if not out["cards_equal"]:
                        out["first_card_diff"] = first_diff(want, raw_headers[i])
                    if r.data is None:
                        # An extension without data comes as a zero-size array (asdf-astropy
                        # cannot build an HDU from null data).
                        out["data_equal"] = h.data is None or np.asarray(h.data).size == 0
                        target = None
                    else:
                        d = np.asarray(h.data)
                        unsigned = d.dtype.kind == "u" or d.dtype == np.int8
                        target = s.data if physical or unsigned else r.data
                        out["data_equal"], out["data_note"] = same_bits(d, target)
                    if with_details:
                        details(out, items[i], h, r, s, fits_path, i)
                    cls = fits.PrimaryHDU if i == 0 else fits.ImageHDU
                    if target is None and h.data is not None:
                        target = h.data  # the zero-size array of an extension without data
                    rebuilt.append(cls(data=None if target is None else np.asarray(target),
                                       header=r.header.copy()))
                    rec["hdus"].append(out)
                # astropy's HDUList adjusts the primary header (EXTEND) as asdf-astropy's does.
                rebuilt = fits.HDUList(rebuilt)
                for out, h, b in zip(rec["hdus"], ours, rebuilt):
                    out["hdul_cards_equal"] = cards(b.header) == cards(h.header)
                    if not out["hdul_cards_equal"]:
                        out["first_hdul_card_diff"] = first_diff(cards(b.header), cards(h.header))
                rec["n_hdus_equal"] = len(ours) == len(raw)
                for key, value in af.tree.items():
                    if key in ("fits", "asdf_library", "history"):
                        continue
                    unit = getattr(value, "unit", None)
                    rec["native"][key] = {"unit": None if unit is None else unit.to_string("vounit"),
                                          "md5": md5(getattr(value, "value", value))}
                    if with_details:
                        rec["native"][key]["quantity"] = unit is not None
                        rec["native"][key]["dtype"] = np.asarray(getattr(value, "value", value)).dtype.str
            rec["ok"] = True
        except Exception as e:  # reported, the C++ test decides
            rec["ok"] = False
            rec["error"] = f"{type(e).__name__}: {e}"
    msgs = []
    for w in caught:
        m = f"{w.category.__name__}: {w.message}"
        if m not in msgs and w.category is not ResourceWarning:
            msgs.append(m)
    rec["warnings"] = msgs
    return rec


def main(argv):
    flags = {a for a in argv if a in ("--physical", "--details")}
    files = [a for a in argv if a not in flags]
    pairs = list(zip(files[0::2], files[1::2]))
    json.dump({a: compare(f, a, "--physical" in flags, "--details" in flags) for f, a in pairs},
              sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Reference limits for `fitsasdf preview` (tests/interop/preview_zscale_test.cc).

Usage: preview_reference.py OUTDIR CORPUS_FITS_DIR

Writes synthetic FITS and ASDF images to OUTDIR (seeded, so every run makes the same files)
and prints one JSON list of cases: the file, the `fitsasdf preview` arguments that choose the
image, and the limits astropy 5.2.1 gives for the plane shown (ZScaleInterval(),
MinMaxInterval(), PercentileInterval(99.5)) on the values astropy's `hdu.data` or python asdf
holds (masked elements left out), with the plane's shape and number of NaN values. The FITS
images of the corpus folder are cases too.
"""
import glob
import json
import os
import sys
import warnings

import asdf
import numpy as np
from astropy.io import fits
from astropy.visualization import MinMaxInterval, PercentileInterval, ZScaleInterval

warnings.simplefilter("ignore")
out_dir, corpus_dir = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(20240531)


def sky(shape, stars=30, mean=100.0, sigma=5.0):
    """Gaussian noise plus a few bright stars."""
    image = rng.normal(mean, sigma, shape)
    rows, cols = shape[-2], shape[-1]
    for _ in range(stars):
        cy, cx = rng.uniform(0, rows), rng.uniform(0, cols)
        peak, width = rng.uniform(200, 5000), rng.uniform(0.8, 3.0)
        y0, y1 = max(0, int(cy - 6 * width)), min(rows, int(cy + 6 * width) + 1)
        x0, x1 = max(0, int(cx - 6 * width)), min(cols, int(cx + 6 * width) + 1)
        y, x = np.mgrid[y0:y1, x0:x1]
        image[..., y0:y1, x0:x1] += peak * np.exp(-((y - cy) ** 2 + (x - cx) ** 2) / (2 * width**2))
    return image


def with_nans(image, fraction=0.02):
    image = image.copy()
    image.flat[rng.choice(image.size, int(image.size * fraction), replace=False)] = np.nan
    image[5:9, 10:30] = np.nan  # a patch
    return image


def plane_of(data, plane=None):
    while data.ndim > 2:
        k = (data.shape[0] - 1) // 2 if plane is None else plane
        plane = None
        data = data[k]
    return data


def limits(values):
    values = np.asarray(values)
    finite = values[np.isfinite(values)]
    return {
        "zscale": [float(v) for v in ZScaleInterval().get_limits(values)],
        "minmax": [float(finite.min()), float(finite.max())],
        "percentile": [float(v) for v in PercentileInterval(99.5).get_limits(values)],
    }


cases = []


def fits_case(name, path, args, hdu, plane=None):
    with fits.open(path) as hdul:
        data = plane_of(hdul[hdu].data, plane)
        case = {"name": name, "file": path, "args": args, "shape": list(data.shape),
                "nan": int(np.isnan(data).sum()) if data.dtype.kind == "f" else 0,
                "dtype": str(data.dtype)}
        case.update(limits(data))
    cases.append(case)


def asdf_case(name, path, pointer, plane=None):
    with asdf.open(path, copy_arrays=True) as af:
        node = af.tree
        for token in pointer.strip("/").split("/"):
            node = node[int(token)] if isinstance(node, list) else node[token]
        data = plane_of(node[...] if not isinstance(node, np.ma.MaskedArray) else node, plane)
        if isinstance(data, np.ma.MaskedArray):
            nan = int(data.mask.sum()) + int(np.isnan(data.compressed()).sum()
                                             if data.dtype.kind == "f" else 0)
            values = data.compressed()
        else:
            values = np.asarray(data)
            nan = int(np.isnan(values).sum()) if values.dtype.kind == "f" else 0
        case = {"name": name, "file": path, "args": ["--array", pointer], "shape": list(data.shape),
                "nan": nan, "dtype": str(np.asarray(data).dtype)}
        case.update(limits(values))
    cases.append(case)


def write_fits(name, hdus):
    path = os.path.join(out_dir, name)
    fits.HDUList(hdus).writeto(path, overwrite=True)
    return path


# Float32 sky with NaNs in an extension named SCI.
path = write_fits("sky_f32.fits", [fits.PrimaryHDU(),
                                   fits.ImageHDU(with_nans(sky((200, 300))).astype(np.float32),
                                                 name="SCI")])
fits_case("float32 with NaN", path, ["--hdu", "SCI"], 1)
fits_case("float32 by number", path, ["--hdu", "1"], 1)
fits_case("float32 first image", path, [], 1)

# int16 with BSCALE, BZERO and BLANK (astropy: float32 physical values, BLANK as NaN).
raw = np.clip(np.round((sky((150, 170)) - 1000) / 0.5), -32000, 32000).astype(np.int16)
raw[rng.integers(0, 150, 200), rng.integers(0, 170, 200)] = -32768
hdu = fits.PrimaryHDU(raw)
hdu.header["BSCALE"], hdu.header["BZERO"], hdu.header["BLANK"] = 0.5, 1000.0, -32768
path = os.path.join(out_dir, "scaled_i16.fits")
hdu.writeto(path, overwrite=True)
fits_case("int16 BSCALE BZERO BLANK", path, [], 0)

# int32 with BSCALE and BLANK (float64 physical values).
raw = np.round(sky((120, 90)) * 1000).astype(np.int32)
raw[3, :] = 999999
hdu = fits.PrimaryHDU(raw)
hdu.header["BSCALE"], hdu.header["BZERO"], hdu.header["BLANK"] = 1e-3, 0.0, 999999
path = os.path.join(out_dir, "scaled_i32.fits")
hdu.writeto(path, overwrite=True)
fits_case("int32 BSCALE BLANK", path, [], 0)

# Unsigned and plain integer types, float64 with infinities.
path = write_fits("u16.fits", [fits.PrimaryHDU(np.clip(sky((100, 130)) * 10, 0, 65535).astype(np.uint16))])
fits_case("uint16 via BZERO", path, [], 0)
path = write_fits("u8.fits", [fits.PrimaryHDU(np.clip(sky((64, 80), mean=40, sigma=8), 0, 255).astype(np.uint8))])
fits_case("uint8", path, [], 0)
path = write_fits("i64.fits", [fits.PrimaryHDU((sky((70, 50)) * 1e6).astype(np.int64))])
fits_case("int64", path, [], 0)
path = write_fits("u32.fits", [fits.PrimaryHDU((sky((40, 60)) * 1e5).astype(np.uint32))])
fits_case("uint32 via BZERO", path, [], 0)
f64 = with_nans(sky((90, 110)))
f64[0, 0], f64[1, 1] = np.inf, -np.inf
path = write_fits("f64.fits", [fits.PrimaryHDU(f64)])
fits_case("float64 with NaN and inf", path, [], 0)

# A cube: the middle plane by default, another by --plane.
cube = np.stack([sky((60, 80), mean=100.0 * (k + 1)) for k in range(5)]).astype(np.float32)
path = write_fits("cube.fits", [fits.PrimaryHDU(cube)])
fits_case("cube middle plane", path, [], 0)
fits_case("cube plane 4", path, ["--plane", "4"], 0, plane=4)
# Four axes: the middle of the extra one.
path = write_fits("hyper.fits", [fits.PrimaryHDU(np.stack([cube, cube * 2, cube * 3]))])
fits_case("4-D middle planes", path, [], 0)

# A large image (downsampled on output; the limits come from every value).
path = write_fits("big.fits", [fits.PrimaryHDU(with_nans(sky((1600, 2500), stars=300)).astype(np.float32))])
fits_case("big float32", path, [], 0)

# Tile-compressed (lossless RICE of int16) and gzip-compressed files.
path = write_fits("tiled.fits", [fits.PrimaryHDU(),
                                 fits.CompImageHDU(np.round(sky((100, 120))).astype(np.int16),
                                                   compression_type="RICE_1", name="SCI")])
fits_case("tile-compressed int16", path, [], 1)
import gzip, shutil
with open(os.path.join(out_dir, "sky_f32.fits"), "rb") as src, \
        gzip.open(os.path.join(out_dir, "sky_f32.fits.gz"), "wb") as dst:
    shutil.copyfileobj(src, dst)
fits_case("gzip float32", os.path.join(out_dir, "sky_f32.fits.gz"), ["--hdu", "SCI,1"], 1)

# ASDF: every numeric dtype python asdf 2.14 writes (not float16), both byte orders, a masked array, a cube.
base = sky((80, 100))
mask = np.zeros(base.shape, bool)
mask[10:20, 30:50] = True
tree = {
    "a1d": np.arange(10.0),
    "f32be": with_nans(base).astype(">f4"),
    "f64le": with_nans(base).astype("<f8"),
    "i8": np.clip(base - 100, -128, 127).astype(np.int8),
    "u8": np.clip(base, 0, 255).astype(np.uint8),
    "i16be": (base * 10).astype(">i2"),
    "u16": (base * 100).astype("<u2"),
    "i32": (base * 1000).astype(np.int32),
    "u32be": (base * 1000).astype(">u4"),
    "i64": (base * 1e6).astype(np.int64),
    "u64be": (base * 1e6).astype(">u8"),
    "masked": np.ma.MaskedArray(base, mask=mask),
    "cube": np.stack([base * (k + 1) for k in range(4)]).astype(np.int16),
    "sub": {"view": with_nans(base)[::2, 1::3]},
}
path = os.path.join(out_dir, "arrays.asdf")
asdf.AsdfFile(tree).write_to(path)
for key in ["f32be", "f64le", "i8", "u8", "i16be", "u16", "i32", "u32be", "i64", "u64be",
            "masked", "cube"]:
    asdf_case("asdf " + key, path, "/" + key)
asdf_case("asdf strided view", path, "/sub/view")

# The FITS images of the corpus.
for path in sorted(glob.glob(os.path.join(corpus_dir, "*.fits"))):
    try:
        with fits.open(path) as hdul:
            images = [i for i, h in enumerate(hdul)
                      if h.is_image and h.data is not None and h.data.ndim >= 2]
    except Exception:
        continue
    for i in images:
        with fits.open(path) as hdul:
            data = plane_of(hdul[i].data)
            if not np.isfinite(data).any():
                continue
        fits_case("corpus " + os.path.basename(path) + " HDU " + str(i), path,
                  ["--hdu", str(i)], i)

print(json.dumps(cases))

"""Write ASDF files shaped like the ones pipelines and archives hold, with python asdf 2.14,
asdf-astropy and gwcs (run with /usr/bin/python3), then mutations of each that may or may not
break a schema: the schema tests compare fitsasdf's verdict with python asdf's on all of them
(tests/asdfcore/schema/python_verdicts_test.cc).

Usage: make_pipeline_trees.py OUTDIR     prints the files written, one a line

The originals:
  gwcs-imaging     a JWST-like imaging gwcs: detector -> v2v3 -> world, with a polynomial
                   distortion, a mapping, shifts, scales, a rotation, the sky projection
  gwcs-spectral    a spectral gwcs: a composite frame (celestial + spectral), a tabular model
  table-mixins     an astropy QTable with Quantity and Time columns and metadata
  jwst-datamodel   a JWST-style datamodel: meta with a tag of the jwst pipeline (no schema is
                   installed for it, as for most pipeline tags), arrays, history entries
  roman-datamodel  a Roman-style tree under asdf:// tags (no schema installed either)
  crds-distortion  a CRDS-style distortion reference file: meta (reftype, instrument, useafter,
                   author, pedigree) and a compound model
  asdf-1.3.0       the imaging gwcs written as ASDF Standard 1.3.0
Arrays are written inline, so that the mutations (text edits of the tree) keep the files whole.
"""

import os
import re
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")

import asdf  # noqa: E402
from asdf.tagged import TaggedDict  # noqa: E402
from astropy import coordinates as coord  # noqa: E402
from astropy import units as u  # noqa: E402
from astropy.modeling import models  # noqa: E402
from astropy.table import QTable  # noqa: E402
from astropy.time import Time  # noqa: E402
import gwcs  # noqa: E402
from gwcs import coordinate_frames as cf  # noqa: E402


def imaging_wcs():
    distortion = (models.Mapping((0, 1, 0, 1))
                  | models.Polynomial2D(2, c0_0=0.1, c1_0=1.0, c0_1=0.01)
                  & models.Polynomial2D(2, c0_0=-0.2, c1_0=0.02, c0_1=1.0))
    to_v2v3 = (models.Shift(-1024.5) & models.Shift(-1024.5)) | distortion | (
        models.Scale(0.031) & models.Scale(0.031))
    to_sky = (models.Rotation2D(12.5) | models.Pix2Sky_TAN()
              | models.RotateNative2Celestial(53.16, -27.79, 180))
    det = cf.Frame2D(name="detector", axes_names=("x", "y"), unit=(u.pix, u.pix))
    v2v3 = cf.Frame2D(name="v2v3", axes_names=("v2", "v3"), unit=(u.arcsec, u.arcsec))
    sky = cf.CelestialFrame(reference_frame=coord.ICRS(), name="world", unit=(u.deg, u.deg))
    return gwcs.WCS([(det, to_v2v3), (v2v3, to_sky), (sky, None)])


def spectral_wcs():
    lam = models.Tabular1D(points=np.arange(10.0), lookup_table=np.linspace(1.0, 2.0, 10) * u.um)
    spatial = models.Shift(1.0) & models.Shift(2.0) | models.Pix2Sky_TAN() | \
        models.RotateNative2Celestial(10.0, 20.0, 180)
    det = cf.CoordinateFrame(3, ["SPATIAL", "SPATIAL", "SPECTRAL"], (0, 1, 2), name="detector",
                             unit=(u.pix, u.pix, u.pix), axes_names=("x", "y", "z"))
    sky = cf.CelestialFrame(reference_frame=coord.ICRS(), name="sky", axes_order=(0, 1))
    spec = cf.SpectralFrame(name="spectral", unit=(u.um,), axes_order=(2,), axes_names=("lam",))
    world = cf.CompositeFrame([sky, spec], name="world")
    return gwcs.WCS([(det, spatial & lam), (world, None)])


def originals():
    table = QTable({"flux": np.array([1.5, 2.5, 3.5]) * u.Jy,
                    "when": Time(["2020-01-01", "2021-06-01", "2022-12-31"]),
                    "name": ["a", "b", "c"]})
    table.meta["survey"] = "test"
    jwst_meta = TaggedDict({"telescope": "JWST", "instrument": {"name": "NIRCAM", "detector": "NRCA1"},
                            "exposure": {"exposure_time": 10.7, "start_time": 59000.5}},
                           "tag:stsci.edu:jwst_pipeline/meta-1.0.0")
    roman = TaggedDict({"meta": TaggedDict({"telescope": "ROMAN", "exposure": {"ma_table_number": 3}},
                                           "asdf://stsci.edu/datamodels/roman/tags/wfi_meta-1.0.0"),
                        "data": (np.arange(16, dtype=np.float32).reshape(4, 4)) * u.Jy},
                       "asdf://stsci.edu/datamodels/roman/tags/wfi_image-1.0.0")
    model = (models.Shift(-10.0) & models.Shift(-20.0)) | models.Mapping((0, 1, 0, 1)) | (
        models.Polynomial2D(3, c0_0=1.0) & models.Polynomial2D(3, c0_1=1.0))
    model.inverse = (models.Shift(10.0) & models.Shift(20.0))
    return {
        "gwcs-imaging": ({"wcs": imaging_wcs()}, "1.5.0"),
        "gwcs-spectral": ({"wcs": spectral_wcs()}, "1.5.0"),
        "table-mixins": ({"table": table}, "1.5.0"),
        "jwst-datamodel": ({"meta": jwst_meta,
                            "data": np.arange(12, dtype=np.float32).reshape(3, 4),
                            "dq": np.zeros((3, 4), dtype=np.uint32),
                            "history": {"entries": [{"description": "calibrated",
                                                      "time": Time("2022-01-01").datetime}]}},
                           "1.5.0"),
        "roman-datamodel": ({"roman": roman}, "1.5.0"),
        "crds-distortion": ({"meta": {"reftype": "DISTORTION", "instrument": {"name": "NIRCAM"},
                                      "useafter": "2022-01-01T00:00:00", "author": "test",
                                      "pedigree": "GROUND", "description": "a test model"},
                             "model": model}, "1.5.0"),
        "asdf-1.3.0": ({"wcs": imaging_wcs()}, "1.3.0"),
    }


# Text edits of the tree, each applied to the first place it matches: what a faulty writer or a
# hand edit does. Some break a schema, some do not; python asdf's verdict is the oracle.
MUTATIONS = [
    ("offset-string", r"(offset: )(-?[0-9.e+-]+)", r"\1'far'"),
    ("factor-list", r"(factor: )(-?[0-9.e+-]+)", r"\1[\2]"),
    ("angle-null", r"(angle: )(-?[0-9.e+-]+)", r"\1null"),
    ("mapping-float", r"(mapping: \[)0", r"\g<1>0.5"),
    ("frame-name-number", r"(name: )(detector|world|v2v3|sky)\b", r"\g<1>17"),
    ("axes-names-string", r"(axes_names: )\[[^\]]*\]", r"\1xy"),
    ("unit-number", r"(unit: !unit/unit-1\.0\.0 )([A-Za-z]+)", r"unit: 12"),
    ("datatype-bad", r"datatype: (float|int|uint)(32|64)", r"datatype: \g<1>65"),
    ("byteorder-middle", r"byteorder: (big|little)", r"byteorder: middle"),
    ("shape-negative", r"shape: \[(\d+)", r"shape: [-\1"),
    ("software-version-float", r"(version: )(\d+\.\d+)\.\d+", r"\g<1>\2"),
    ("n-inputs-string", r"(n_dims: )(\d)", r"\1'two'"),
    ("degree-string", r"(degree: )(\d)", r"\1'three'"),
    ("bounding-box-scalar", r"(bounding_box: )\[\[[^\]]*\][^\]]*\]", r"\g<1>4"),
    ("time-format-number", r"(format: )(iso|isot|mjd|jd)", r"\g<1>7"),
    ("quantity-value-string", r"(value: )(-?[0-9.]+)", r"\1abc"),
    ("tag-version-bump", r"!transform/shift-1\.[0-9]\.0", r"!transform/shift-1.9.0"),
    ("tag-to-scale", r"!transform/shift-(1\.[0-9]\.0)", r"!transform/scale-\1"),
    ("inverse-string", r"(inverse: )(!transform)", r"\1'none' #\2"),
    ("reftype-list", r"(reftype: )(\w+)", r"\1[\2]"),
]


def main(argv):
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    written = []
    for name, (tree, version) in originals().items():
        path = os.path.join(out, name + ".asdf")
        af = asdf.AsdfFile(tree, version=version)
        af.write_to(path, all_array_storage="inline")
        written.append(path)
        text = open(path, "rb").read().decode("utf-8")
        for label, pattern, replacement in MUTATIONS:
            changed, n = re.subn(pattern, replacement, text, count=1)
            if n == 0 or changed == text:
                continue
            mutated = os.path.join(out, f"{name}--{label}.asdf")
            with open(mutated, "wb") as f:
                f.write(changed.encode("utf-8"))
            written.append(mutated)
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

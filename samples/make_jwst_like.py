"""Write samples/jwst_like.asdf with python asdf (run with /usr/bin/python3): a small file shaped
like a JWST level-2 product (meta by instrument and exposure, a float32 science image, a uint32
data-quality image, a compressed float32 error image), for the library samples and tests."""
import sys

import asdf
import numpy as np

rng = np.random.default_rng(20261126)
sci = (rng.normal(100.0, 5.0, (64, 64))).astype(np.float32)
sci[32, 32] = 5000.0  # a star
dq = np.zeros((64, 64), dtype=np.uint32)
dq[0, :] = 1  # DO_NOT_USE on the first row
err = np.sqrt(np.abs(sci)).astype(np.float32)
tree = {
    "meta": {
        "telescope": "JWST",
        "model_type": "ImageModel",
        "instrument": {"name": "NIRCAM", "detector": "NRCA1", "filter": "F200W"},
        "exposure": {
            "exptime": 1374.3,
            "ngroups": 10,
            "start_time": 60370.520833,  # MJD, as JWST's meta.exposure.start_time
            "date_obs": "2024-03-01",
            "readpatt": "MEDIUM8",
        },
        "observation": {"program_number": "01234", "visit": 1},
    },
    "data": sci,
    "dq": dq,
    "err": err,
}
af = asdf.AsdfFile(tree)
af.set_array_compression(err, "zlib")
af.write_to(sys.argv[1] if len(sys.argv) > 1 else "jwst_like.asdf")

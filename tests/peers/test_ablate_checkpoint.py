"""bench/peers/ablate_checkpoint.py: the reader of graph/checkpoint_file.h's format, on files
written here by the documented layout (every way a file can be wrong, each named), and on a
checkpoint the ablate binary writes when ABLATE_BINARY names one.

    /usr/bin/python3 -m unittest discover -s tests/peers
"""
import os
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "peers"))
import ablate_checkpoint as ck  # noqa: E402

CODES = {np.dtype("<f4"): 0, np.dtype("<f8"): 1, np.dtype("<i4"): 2, np.dtype("u1"): 3}


def string(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b


def payload(metadata, tensors):
    out = struct.pack("<I", len(metadata)) + b"".join(string(k) + string(v) for k, v in metadata.items())
    out += struct.pack("<I", len(tensors))
    for name, a in tensors.items():
        out += string(name) + struct.pack("<BI", CODES[a.dtype], a.ndim) + struct.pack(f"<{a.ndim}q", *a.shape)
        out += a.tobytes()
    return out


def checkpoint(body, version=1, magic=b"ABLATECK", crc=None, size=None):
    head = magic + struct.pack("<IQ", version, len(body) if size is None else size)
    return head + body + struct.pack("<I", zlib.crc32(body) if crc is None else crc)


TENSORS = {"conv1.weight": np.arange(24, dtype="<f4").reshape(2, 3, 2, 2), "conv1.bias": np.array([0.5, -1.0]),
           "conv1.weight/velocity": np.zeros((2, 3, 2, 2), "<f4"), "steps": np.array([7], "<i4")}


class ReaderTest(unittest.TestCase):
    def test_round_trip_keeps_metadata_names_dtypes_shapes_and_values(self):
        c = ck.parse(checkpoint(payload({"iteration": "1", "strategy": "static"}, TENSORS)), "t.ckpt")
        self.assertEqual(c.metadata, {"iteration": "1", "strategy": "static"})
        self.assertEqual(list(c.tensors), list(TENSORS))
        for name, a in TENSORS.items():
            self.assertEqual(c.tensor(name).dtype, a.dtype)
            np.testing.assert_array_equal(c.tensor(name), a)
        self.assertEqual(sorted(c.parameters()), ["conv1.bias", "conv1.weight"])  # no optimizer slots

    def assert_error(self, data, *words):
        with self.assertRaises(ck.CheckpointError) as e:
            ck.parse(data, "bad.ckpt")
        for w in ("bad.ckpt",) + words:
            self.assertIn(w, str(e.exception))

    def test_each_broken_file_is_named_with_its_problem(self):
        body = payload({"k": "v"}, TENSORS)
        self.assert_error(b"ABLATECK", "shorter than")
        self.assert_error(checkpoint(body, magic=b"NOTABLAT"), "magic", "not an ablate checkpoint")
        self.assert_error(checkpoint(body, version=2), "version 2")
        self.assert_error(checkpoint(body)[:-10], "payload", "truncated")
        self.assert_error(checkpoint(body, crc=zlib.crc32(body) ^ 1), "CRC-32", "corrupted")
        self.assert_error(checkpoint(body, size=len(body) + 1), "payload of")

    def test_a_payload_whose_lengths_lie_is_named(self):
        good = payload({}, {"w.weight": np.zeros(4, "<f4")})
        cut = checkpoint(good[:-4])  # the tensor's data 4 bytes short, with a valid checksum
        self.assert_error(cut, "truncated data of tensor 'w.weight'")
        bad_code = good.replace(string("w.weight") + b"\x00", string("w.weight") + b"\x09")
        self.assert_error(checkpoint(bad_code), "dtype code 9")
        self.assert_error(checkpoint(good + b"\x00"), "1 bytes after the last tensor")
        self.assert_error(checkpoint(struct.pack("<I", 1) + struct.pack("<I", 99)), "truncated metadata key 0")

    def test_load_parameters_checks_names_shapes_and_dtype(self):
        data = checkpoint(payload({}, {"fc.weight": np.zeros((3, 4)), "fc.bias": np.zeros(3)}))
        with tempfile.NamedTemporaryFile(suffix=".ckpt") as f:
            f.write(data)
            f.flush()
            got = ck.load_parameters(f.name, {"fc.weight": (3, 4), "fc.bias": (3,)}, np.float64)
            self.assertEqual(got["fc.weight"].shape, (3, 4))
            for expected, dtype, words in (({"fc.weight": (4, 3), "fc.bias": (3,)}, np.float64, ["'fc.weight' is [3, 4]"]),
                                           ({"fc.weight": (3, 4), "fc.bias": (3,)}, np.float32, ["the run's precision"]),
                                           ({"fc.weight": (3, 4)}, np.float64, ["'fc.bias' is not a parameter"]),
                                           ({"fc.weight": (3, 4), "fc.bias": (3,), "out.bias": (2,)}, np.float64,
                                            ["no 'out.bias'"])):
                with self.assertRaises(ck.CheckpointError) as e:
                    ck.load_parameters(f.name, expected, dtype)
                for w in [f.name, "does not fit"] + words:
                    self.assertIn(w, str(e.exception))

    def test_a_missing_file_is_named(self):
        with self.assertRaises(ck.CheckpointError) as e:
            ck.read("/nonexistent/x.ckpt")
        self.assertIn("/nonexistent/x.ckpt", str(e.exception))


@unittest.skipUnless(os.access(os.environ.get("ABLATE_BINARY", ""), os.X_OK), "ABLATE_BINARY names no ablate binary")
class AblateWrittenTest(unittest.TestCase):
    def test_a_snapshot_of_caffe_lenet_reads_with_its_parameters_in_ablate_layouts(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.ckpt")
            subprocess.run([os.environ["ABLATE_BINARY"], "run", "--framework", "caffe", "--iterations", "1",
                            "--test-iterations", "1", "--snapshot-every", "1", "--snapshot", path, "--quiet"],
                           check=True, stdout=subprocess.DEVNULL)
            c = ck.read(path)
        self.assertEqual(c.metadata["iteration"], "1")
        shapes = {n: list(t.shape) for n, t in c.parameters().items()}
        self.assertEqual(shapes, {"conv1.weight": [20, 1, 5, 5], "conv1.bias": [20], "conv2.weight": [50, 20, 5, 5],
                                  "conv2.bias": [50], "ip1.weight": [500, 800], "ip1.bias": [500],
                                  "ip2.weight": [10, 500], "ip2.bias": [10]})


if __name__ == "__main__":
    unittest.main()

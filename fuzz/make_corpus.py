#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/) and their libFuzzer
dictionaries (fuzz/<target>.dict): a few valid inputs and a few broken ones per reader, small
enough to commit. Run from anywhere: /usr/bin/python3 fuzz/make_corpus.py. The layout of each
target's input (flag bytes, length prefix) is the one described at the top of its
fuzz/<target>_fuzzer.cpp."""
import gzip
import io
import pathlib
import re
import shutil
import struct
import zlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
FUZZ = ROOT / "fuzz"
CORPUS = FUZZ / "corpus"


def gz(data):
    return gzip.compress(data, mtime=0)


def idx_images(n, rows, cols, magic=0x803):
    return struct.pack(">IIII", magic, n, rows, cols) + bytes((i * 37) % 256 for i in range(n * rows * cols))


def idx_labels(labels, magic=0x801):
    return struct.pack(">II", magic, len(labels)) + bytes(labels)


def idx_input(images, labels, flags=0, classes=10):
    """fuzz_idx input: flags, classes - 1, big-endian images length, images, labels."""
    return bytes([flags, classes - 1]) + struct.pack(">H", len(images)) + images + labels


def idx_seeds():
    ok_images, ok_labels = idx_images(3, 4, 4), idx_labels([0, 9, 5])
    yield "valid_raw", idx_input(ok_images, ok_labels)
    yield "valid_28x28", idx_input(idx_images(1, 28, 28), idx_labels([7]))
    yield "valid_gzip_files", idx_input(gz(ok_images), gz(ok_labels))
    yield "valid_gzipped_by_target", idx_input(ok_images, ok_labels, flags=3)
    yield "valid_2_classes", idx_input(ok_images, idx_labels([0, 1, 1]), classes=2)
    yield "valid_empty_set", idx_input(idx_images(0, 28, 28), idx_labels([]))
    yield "broken_swapped_files", idx_input(ok_labels, ok_images)
    yield "broken_little_endian", idx_input(struct.pack("<IIII", 0x803, 3, 4, 4) + ok_images[16:], ok_labels)
    yield "broken_short_header", idx_input(ok_images[:10], ok_labels)
    yield "broken_truncated_pixels", idx_input(ok_images[:-5], ok_labels)
    yield "broken_trailing_bytes", idx_input(ok_images + b"xyz", ok_labels)
    yield "broken_label_out_of_range", idx_input(ok_images, idx_labels([0, 10, 200]))
    yield "broken_count_mismatch", idx_input(ok_images, idx_labels([0, 1]))
    yield "broken_zero_rows", idx_input(idx_images(3, 0, 4), ok_labels)
    yield "broken_huge_header", idx_input(struct.pack(">IIII", 0x803, 0xFFFFFFFF, 0xFFFF, 0xFFFF), ok_labels)
    yield "broken_gzip_cut_off", idx_input(gz(ok_images)[:-9], gz(ok_labels))
    corrupt = bytearray(gz(ok_images))
    corrupt[-6] ^= 0xFF  # CRC32
    yield "broken_gzip_crc", idx_input(bytes(corrupt), ok_labels)


def cifar_record(label, seed):
    return bytes([label]) + bytes((seed + 7 * i) % 256 for i in range(3072))


def cifar10_seeds():
    one, two = cifar_record(3, 1), cifar_record(3, 1) + cifar_record(9, 2)
    yield "valid_one_record", b"\x00" + one
    yield "valid_two_records", b"\x00" + two
    yield "valid_gzip_file", b"\x00" + gz(two)
    yield "valid_gzipped_by_target", b"\x01" + one
    yield "valid_two_batches", b"\x02" + one
    yield "broken_empty", b"\x00"
    yield "broken_short_record", b"\x00" + one[:-1]
    yield "broken_label_10", b"\x00" + cifar_record(10, 3)
    yield "broken_cifar100_record", b"\x00" + bytes([1]) + one
    yield "broken_gzip_cut_off", b"\x00" + gz(two)[:-20]


def model_seeds():
    for path in sorted((ROOT / "models" / "zoo").glob("*.model")):
        yield "valid_" + path.stem, path.read_bytes()
    head = b"model m\ninput 1 8 8\nclasses 3\n"
    yield "valid_dag", head + (b"layer c convolution outputs=4 kernel=3 padding=same\n"
                               b"layer p pooling kernel=2 padding=tf_same input=c\n"
                               b"layer b bias\nlayer n lrn size=3\nlayer d dropout keep=0.5\n"
                               b"layer f inner_product outputs=3 bias=false\nlayer s log_softmax\nlayer l nll_loss\n")
    yield "valid_conv_map", head.replace(b"1 8 8", b"6 8 8") + (
        b"layer m conv_map outputs=4 kernel=3 fan_in=2 table_seed=5\n"
        b"layer f inner_product outputs=3\nlayer l softmax_loss\n")
    yield "broken_unknown_type", head + b"layer c conv outputs=4 kernel=3\nlayer l softmax_loss\n"
    yield "broken_missing_classes", b"model m\ninput 1 8 8\nlayer l softmax_loss\n"
    yield "broken_loss_not_last", head + b"layer l softmax_loss\nlayer f inner_product outputs=3\n"
    yield "broken_kernel_too_big", head + b"layer c convolution outputs=4 kernel=9\nlayer f inner_product outputs=3\nlayer l softmax_loss\n"
    yield "broken_pool_pad", head + b"layer p pooling kernel=2 pad=2\nlayer f inner_product outputs=3\nlayer l softmax_loss\n"
    yield "broken_fan_in", head + b"layer m conv_map outputs=4 kernel=3 fan_in=2\nlayer f inner_product outputs=3\nlayer l softmax_loss\n"
    yield "broken_classes_mismatch", head + b"layer f inner_product outputs=4\nlayer l softmax_loss\n"
    yield "broken_input_later", head + b"layer f inner_product outputs=3 input=l\nlayer l softmax_loss\n"
    yield "broken_big_numbers", (b"model m\ninput 2147483647 2147483647 2147483647\nclasses 2147483647\n"
                                 b"layer c convolution outputs=2147483647 kernel=3 pad=2147483647 stride=2147483647\n"
                                 b"layer f inner_product outputs=2147483647\nlayer l softmax_loss\n")
    yield "broken_value", head + b"layer f inner_product outputs=3x weight_init=gaussian:-1\nlayer l softmax_loss\n"


def preset_seeds():
    for path in sorted((ROOT / "models" / "presets").glob("*.preset")):
        yield "valid_" + path.stem, path.read_bytes()
    yield "valid_small", b"batch 32\nbase_lr 1e-3\nthreads all\nstepvalues 100, 200,300\nshuffle true\n"
    yield "broken_unknown_key", b"batchsize 64\n"
    yield "broken_twice", b"batch 64\nbatch 32\n"
    yield "broken_no_value", b"base_lr\n"
    yield "broken_values", b"base_lr -1\nbatch 0\nstepvalues 1,,2\nthreads none\nshuffle yes\nmomentum nan\n"
    yield "broken_huge_int", b"iterations 99999999999999999999999\nseed 18446744073709551616\n"


def checkpoint_file(metadata, tensors, version=1):
    """graph/checkpoint_file.h: magic, version, payload size, payload, CRC-32 of the payload."""
    def string(s):
        b = s.encode()
        return struct.pack("<I", len(b)) + b
    payload = struct.pack("<I", len(metadata)) + b"".join(string(k) + string(v) for k, v in metadata)
    payload += struct.pack("<I", len(tensors))
    for name, code, dims, data in tensors:
        payload += string(name) + struct.pack("<BI", code, len(dims)) + b"".join(struct.pack("<q", d) for d in dims) + data
    return b"ABLATECK" + struct.pack("<IQ", version, len(payload)) + payload + struct.pack("<I", zlib.crc32(payload))


def checkpoint_seeds():
    w = struct.pack("<6f", 0.5, -1.25, 2.0, 0.0, 3.5, -0.75)
    good = checkpoint_file([("iteration", "12"), ("curve", "1 0.1 2.3 - - -\n")],
                           [("conv1.weight", 0, [2, 3], w), ("conv1.weight.state0", 1, [2], struct.pack("<2d", 1.0, 2.0)),
                            ("empty", 2, [0], b"")])
    return [("good.ckpt", good), ("no_tensors.ckpt", checkpoint_file([("strategy", "static")], [])),
            ("version2.ckpt", checkpoint_file([], [], version=2)), ("truncated.ckpt", good[:40]),
            ("bad_crc.ckpt", good[:-1] + bytes([good[-1] ^ 1]))]


def png(h, w, comp, seed=0, declared=None):
    """A PNG of h x w pixels with comp components (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA), 8 bits;
    `declared` (h, w) puts another size in the header than the pixels have."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    color = {1: 0, 2: 4, 3: 2, 4: 6}[comp]
    dh, dw = declared or (h, w)
    rows = b"".join(b"\x00" + bytes((seed + 3 * x + 11 * y) % 256 for x in range(w * comp)) for y in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", dw, dh, 8, color, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def bmp(h, w, seed=0, declared=None):
    """A 24-bit BMP (bottom-up rows padded to 4 bytes); `declared` as for png()."""
    dh, dw = declared or (h, w)
    stride = (3 * w + 3) // 4 * 4
    rows = b"".join(bytes((seed + 5 * x + 7 * y) % 256 for x in range(3 * w)).ljust(stride, b"\x00") for y in range(h))
    info = struct.pack("<IiiHHIIiiII", 40, dw, dh, 1, 24, 0, len(rows), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + len(info) + len(rows), 0, 0, 14 + len(info)) + info + rows


def jpeg(h, w, mode="L", seed=0, progressive=False):
    """A JPEG through Pillow (python3-pil, a dependency of python3-matplotlib)."""
    from PIL import Image
    image = Image.frombytes(mode, (w, h), bytes((seed + 9 * i) % 256 for i in range(w * h * len(mode))))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=75, progressive=progressive)
    return out.getvalue()


def folder_input(files, classes=1, per_class=1, resize=False):
    """fuzz_image_folder input: flags, then each file but the last with a big-endian 2-byte length."""
    flags = (classes - 1) | (per_class - 1) << 2 | (16 if resize else 0)
    body = b"".join(struct.pack(">H", len(f)) + f for f in files[:-1]) + files[-1]
    return bytes([flags]) + body


def image_folder_seeds():
    gray = png(4, 4, 1)
    yield "valid_gray_png", folder_input([gray])
    yield "valid_rgba_png", folder_input([png(3, 5, 4, 1)])
    yield "valid_bmp", folder_input([bmp(4, 3, 2)])
    yield "valid_jpeg_gray", folder_input([jpeg(8, 8)])
    yield "valid_jpeg_rgb_progressive", folder_input([jpeg(9, 7, "RGB", 3, progressive=True)])
    yield "valid_2_classes_2_files", folder_input([gray, png(4, 4, 2, 5), png(4, 4, 1, 9), gray], 2, 2)
    yield "valid_3_classes_mixed_resized", folder_input([png(5, 6, 3), bmp(4, 4, 1), jpeg(6, 6, "RGB")], 3, 1, True)
    yield "broken_sizes_differ", folder_input([gray, png(5, 4, 1)], 1, 2)
    yield "broken_empty_file", folder_input([gray, b""], 2, 1)
    yield "broken_truncated_png", folder_input([gray[:-20]])
    yield "broken_png_bad_crc", folder_input([gray[:20] + bytes([gray[20] ^ 1]) + gray[21:]])
    yield "broken_png_huge_header", folder_input([png(4, 4, 1, declared=(60000, 60000))])
    yield "broken_bmp_huge_header", folder_input([bmp(2, 2, declared=(60000, 60000))])
    yield "broken_bmp_negative_height", folder_input([bmp(2, 2, declared=(-2, 2))])
    yield "broken_bmp_height_0_resized", folder_input([png(2, 2, 3), bmp(2, 2, declared=(0, 31748))], 2, 1, True)
    yield "broken_png_header_bigger_than_pixels", folder_input([png(4, 4, 3, declared=(64, 64))], 1, 1, True)
    yield "broken_truncated_jpeg", folder_input([jpeg(16, 16, "RGB")[:-40]])
    yield "broken_not_an_image", folder_input([b"GIF89a not a png"])
    # A DHT table of 400 codes (at most 256): stb_image 2.27 wrote past its tables (stb_guard.h).
    yield "broken_jpeg_dht_400_codes", folder_input([b"\xff\xd8\xff\xc4\x00\x13\x11" + bytes([200, 200] + [0] * 14) +
                                                     b"\xff\xd9"])


def string_literals(path, pattern=r'"([a-z_][a-z0-9_]*)"'):
    return sorted(set(re.findall(pattern, path.read_text())))


def write_dict(name, words):
    lines = ["# libFuzzer dictionary for fuzz_%s, written by fuzz/make_corpus.py" % name]
    lines += ['"%s"' % w for w in words]
    (FUZZ / (name + ".dict")).write_text("\n".join(lines) + "\n")


def main():
    targets = {"idx": idx_seeds(), "cifar10": cifar10_seeds(), "image_folder": image_folder_seeds(),
               "model_spec": model_seeds(), "preset": preset_seeds(), "checkpoint": checkpoint_seeds()}
    for target, seeds in targets.items():
        folder = CORPUS / target
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for name, data in seeds:
            (folder / name).write_bytes(data)
    models = ROOT / "models"
    model_words = string_literals(models / "layer_catalog.cpp") + ["model", "input", "classes", "layer",
                                                                    "constant:", "gaussian:", "truncated_normal:",
                                                                    "=", "true", "false", "2147483647", "\n"]
    write_dict("model_spec", sorted(set(w.replace("\n", "\\x0A") for w in model_words)))
    write_dict("preset", string_literals(models / "preset.cpp") + ["all", "true", "false", "1e-4", ","])
    # The chunk and marker names the decoders look for (PNG chunks, JPEG markers, BMP magic).
    write_dict("image_folder", ["\\x89PNG\\x0D\\x0A\\x1A\\x0A", "IHDR", "IDAT", "IEND", "PLTE", "tRNS", "CgBI",
                                "\\xFF\\xD8", "\\xFF\\xD9", "\\xFF\\xC0", "\\xFF\\xC2", "\\xFF\\xC4", "\\xFF\\xDA",
                                "\\xFF\\xDB", "\\xFF\\xDD", "\\xFF\\xEE", "Adobe", "BM", "\\x28\\x00\\x00\\x00",
                                "\\x7C\\x00\\x00\\x00"])


if __name__ == "__main__":
    main()

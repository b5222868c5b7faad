"""Turn a pytest-benchmark JSON into the ratio table of BENCHMARKS.md (medians of one run)."""
import json
import sys

SIZES = {"add-8320": 8320, "add-65536": 65536, "add-one-repeat": 128, "reducesum-8320": 8320,
         "reducesum-65536": 65536, "pair-255": 255 * 128, "tiled-16mi": 16 * 1024 * 1024, "reg-vf-8320": 8320,
         "cast-h2f-8320": 8320, "cast-f2h-8320": 8320, "compare-select-8320": 8320, "datacopypad-8320": 8320,
         "wholereducesum-65x128": 8320, "reducemax-index-8320": 8320, "blockreducesum-8320": 8320,
         "reg-add-mul-8320": 8320, "reg-cast-8320": 8320}


def main(path):
    data = json.load(open(path))
    machine = data.get("machine_info", {})
    print(f"Measured {data.get('datetime', '')[:19]} on {machine.get('cpu', {}).get('brand_raw', '?')}, "
          f"Python {machine.get('python_version', '?')}; medians of one pytest-benchmark run.\n")
    groups = {}
    for b in data["benchmarks"]:
        groups.setdefault(b["group"], []).append(b)
    print("| group | case | median | elements/s | ratio to numpy baseline(s) |")
    print("|---|---|---|---|---|")
    for group, benches in groups.items():
        is_base = lambda name: "_np_" in name or "[np_" in name  # noqa: E731
        label = lambda name: name.split("_np_")[1] if "_np_" in name else name.split("[")[1].split("-")[0]  # noqa: E731
        baselines = {b["name"]: b["stats"]["median"] for b in benches if is_base(b["name"])}
        for b in benches:
            med = b["stats"]["median"]
            n = SIZES.get(group, 8320 if group.endswith("-8320") else (128 if group.endswith("one-repeat") else None))
            rate = f"{n / med:.3g}" if n else ""
            ratios = ", ".join(f"{med / base:.2f}x {label(name)}" for name, base in baselines.items()
                               if name != b["name"]) if not is_base(b["name"]) else "(baseline)"
            print(f"| {group} | {b['name'].replace('test_', '')} | {med * 1e6:.2f} us | {rate} | {ratios} |")


if __name__ == "__main__":
    main(sys.argv[1])

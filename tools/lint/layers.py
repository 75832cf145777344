#!/usr/bin/env python3
"""The include-direction rule: baton is a stack of layers, and a file
includes only from its own layer and the layers below it.

  top level:    util < sync < renderer < handoff < protocols < backend < compositor
  compositor/:  config < output < desktop < shell < input < compositor/*.cpp,hpp
                (server, main, launcher: the top, which wires the rest)
  renderer/vulkan/:  device < texture < swapchain < pass < renderer/vulkan/*.cpp,hpp
                (the Renderer hub, its method files and the public header)

Checks baton's production code (not tests/, bench/, docs/). Prints the
includes between layers, lower to higher counted as upward; exits 1 when
there is any. The build runs it (compositor/meson.build) so that an upward
include fails `ninja`, and the lint suite runs it for the report.

usage: layers.py [--stamp FILE] [--quiet] [SOURCE_ROOT]
"""
import os
import re
import sys

TOP = ["util", "sync", "renderer", "handoff", "protocols", "backend", "compositor"]
COMPOSITOR = ["config", "output", "desktop", "shell", "input"]
VULKAN = ["device", "texture", "swapchain", "pass"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def nested_rank(parts, order):
    """Rank inside a folder whose sub-folders are ordered: a file directly in
    the folder is above every sub-folder; None for a sub-folder not in order."""
    if len(parts) == 1:
        return len(order)
    if parts[0] not in order:
        return None
    return order.index(parts[0])


def layer_of(path):
    """(top rank, rank inside compositor/ or renderer/vulkan/) of a repository
    path; None when outside the stack."""
    parts = path.split("/")
    if parts[0] not in TOP:
        return None
    top = TOP.index(parts[0])
    if parts[0] == "compositor":
        rank = nested_rank(parts[1:], COMPOSITOR)
        return None if rank is None else (top, rank)
    return (top, 0)


def vulkan_rank(path):
    """Rank inside renderer/vulkan/; None for a path outside it."""
    parts = path.split("/")
    if parts[:2] != ["renderer", "vulkan"] or parts[2] == "shaders":
        return None
    return nested_rank(parts[2:], VULKAN)


def name_of(path):
    parts = path.split("/")
    if parts[0] == "compositor":
        return "compositor/" + (parts[1] if len(parts) > 2 else "(top)")
    if parts[:2] == ["renderer", "vulkan"]:
        return "renderer/vulkan/" + (parts[2] if len(parts) > 3 else "(top)")
    return parts[0]


def is_upward(source_path, target_path):
    source, target = layer_of(source_path), layer_of(target_path)
    if source is None or target is None:
        return False
    if target != source:
        return target > source
    # Inside renderer/ the top-level order says nothing; renderer/vulkan/'s own does.
    inner_source, inner_target = vulkan_rank(source_path), vulkan_rank(target_path)
    return None not in (inner_source, inner_target) and inner_target > inner_source


def main(argv):
    stamp = None
    quiet = False
    args = []
    it = iter(argv)
    for arg in it:
        if arg == "--stamp":
            stamp = next(it)
        elif arg == "--quiet":
            quiet = True
        else:
            args.append(arg)
    root = args[0] if args else os.path.join(os.path.dirname(__file__), "..", "..")
    upward = []
    between = {}
    files = 0
    for folder in TOP:
        for directory, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith((".cpp", ".hpp", ".h", ".c")):
                    continue
                path = os.path.relpath(os.path.join(directory, name), root)
                source = layer_of(path)
                if source is None:
                    continue
                files += 1
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        match = INCLUDE.match(line)
                        if not match:
                            continue
                        target = match.group(1)
                        if layer_of(target) is None or name_of(target) == name_of(path):
                            continue
                        key = (name_of(path), name_of(target))
                        between[key] = between.get(key, 0) + 1
                        if is_upward(path, target):
                            upward.append(f"{path}:{number}: includes {match.group(1)}, "
                                          f"a layer above {name_of(path)}")
    if not quiet:
        print(f"layers: {files} files, {sum(between.values())} includes between layers, "
              f"{len(upward)} upward")
    for line in upward:
        print("upward include: " + line, file=sys.stderr)
    if upward:
        print("layers, bottom up: " + " < ".join(TOP) + "; inside compositor/: " +
              " < ".join(COMPOSITOR) + " < the top (server); inside renderer/vulkan/: " +
              " < ".join(VULKAN) + " < the top (the Renderer hub)", file=sys.stderr)
        return 1
    if stamp:
        with open(stamp, "w", encoding="utf-8") as f:
            f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

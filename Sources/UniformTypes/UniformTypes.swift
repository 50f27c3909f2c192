// Placeholder until the UniformTypes layer lands.

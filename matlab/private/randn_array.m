function x = randn_array(cls, sz, cx)
% randn_array  A test input of the matlab/ scripts: randn(sz), complex (a second randn(sz) as the
% imaginary part) when cx, converted to the class cls (@single, @double).
  x = randn(sz);
  if cx
    x = complex(x, randn(sz));
  end
  x = cls(x);
end

function tol = result_kind(script, got, want, what, complexity)
% result_kind  got must have want's class, size and complexity, else an error "SCRIPT: WHAT: ...";
% tol is the relative error the matlab/ comparisons allow for want's class: 1e-5 single, 1e-12
% double. complexity 'exact' (the default): complex exactly where want is; 'nonzero': only a want
% with a non-zero imaginary part needs a complex got (Octave stores a complex array whose
% imaginary parts are all 0 as real, and either side may be such an array).
  if nargin < 5
    complexity = 'exact';
  end
  cx = iscomplex(got) ~= iscomplex(want);
  if strcmp(complexity, 'nonzero')
    cx = cx && any(imag(want(:)) ~= 0);
  end
  if ~strcmp(class(got), class(want)) || cx
    error('%s: %s: class %s (complex %d), want %s (complex %d)', script, what, class(got), ...
          iscomplex(got), class(want), iscomplex(want));
  end
  if ~isequal(size(got), size(want))
    error('%s: %s: size %s, want %s', script, what, mat2str(size(got)), mat2str(size(want)));
  end
  if isa(want, 'single')
    tol = 1e-5;
  else
    tol = 1e-12;
  end
end

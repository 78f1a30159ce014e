m = Kernel.method(:system)
n = method(:eval)
m.call(cmd)
n.(code)

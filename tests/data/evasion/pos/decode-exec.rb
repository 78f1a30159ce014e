eval(Base64.decode64(p))
instance_eval(p.unpack1('m'))
Kernel.eval([p].pack('H*'))

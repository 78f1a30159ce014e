import codecs

blob = "))(qnre.)'gfbu/pgr/'(arcb(gavec"
step1 = blob[::-1]
step2 = codecs.decode(step1, "rot_13")
result = eval(step2)

import unittest

M32 = 0xFFFFFFFF


def rotl(v, n):
    return ((v << n) & M32) | (v >> (32 - n))


def quarter_round(a, b, c, d):
    a = (a + b) & M32; d ^= a; d = rotl(d, 16)
    c = (c + d) & M32; b ^= c; b = rotl(b, 12)
    a = (a + b) & M32; d ^= a; d = rotl(d, 8)
    c = (c + d) & M32; b ^= c; b = rotl(b, 7)
    return a, b, c, d


class QuarterRoundTest(unittest.TestCase):
    def test_rfc8439_2_1_1(self):
        out = quarter_round(0x11111111, 0x01020304, 0x9B8D6F43, 0x01234567)
        self.assertEqual(out, (0xEA2A92F4, 0xCB1CF8CE, 0x4581472E, 0x5881C4BB))

    def test_rfc8439_2_4_2_prefix(self):
        keystream = bytes.fromhex("224f51f3401bd9e12fde276fb8631ded8c131f82")
        plain = b"Ladies and Gentlemen"
        ct = bytes(p ^ k for p, k in zip(plain, keystream))
        self.assertEqual(ct.hex(), "6e2e359a2568f98041ba0728dd0d6981e97e7aec")
        self.assertEqual(bytes(c ^ k for c, k in zip(ct, keystream)), plain)


if __name__ == "__main__":
    unittest.main()

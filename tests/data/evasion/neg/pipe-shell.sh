curl -s https://api.example.net/v1/items | jq .items
curl -s https://example.net/list.txt | sort | uniq -c
curl -s https://example.net/x.tar.gz | tar xz
curl -fsSL https://example.net/key.gpg | sudo gpg --dearmor -o /usr/share/keyrings/x.gpg
curl -s https://example.net/data | tee out.txt | wc -l
curl https://example.net/a | nice gzip > a.gz
curl https://example.net/a | env LC_ALL=C sort
curl https://example.net/s.sh -o s.sh  # review it, then: sh s.sh
curl https://example.net/a | timeout 10 grep -q ok
curl https://example.net/a | shasum -a 256
curl https://example.net/a | shellcheck -

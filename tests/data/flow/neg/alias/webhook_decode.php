<?php
// handlers/webhook.php - receives queue notifications
$d = 'base64_decode';
$f = 'strtoupper';

$raw = file_get_contents('php://input');
$msg = json_decode($raw, true);
if (!is_array($msg) || !isset($msg['data'])) {
    http_response_code(400);
    exit;
}

$payload = json_decode($d($msg['data']), true);
$event = $f($payload['event'] ?? 'unknown');
error_log("webhook event: $event");

header('Content-Type: application/json');
echo json_encode(['received' => $event]);

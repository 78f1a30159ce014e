<?php
declare(strict_types=1);

require_once __DIR__ . '/vendor/autoload.php';

$dsn = sprintf('pgsql:host=%s;dbname=%s', getenv('DB_HOST') ?: 'localhost', getenv('DB_NAME') ?: 'notes');
$pdo = new PDO($dsn, getenv('DB_USER') ?: 'notes', getenv('DB_PASSWORD') ?: '');

header('Content-Type: application/json');
$stmt = $pdo->query('SELECT id, title FROM notes ORDER BY id DESC LIMIT 20');
echo json_encode($stmt->fetchAll(PDO::FETCH_ASSOC));

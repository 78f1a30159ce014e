terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.50" }
  }
}

provider "aws" {
  region = var.region
}

variable "region" {
  type    = string
  default = "eu-west-1"
}

resource "aws_s3_bucket" "notes_backups" {
  bucket = "acme-notes-backups"
}

resource "aws_s3_bucket_versioning" "notes_backups" {
  bucket = aws_s3_bucket.notes_backups.id
  versioning_configuration { status = "Enabled" }
}

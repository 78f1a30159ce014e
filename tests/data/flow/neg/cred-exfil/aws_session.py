import argparse

import boto3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", default="default")
    args = parser.parse_args()

    session = boto3.Session(profile_name=args.profile)
    ident = session.client("sts").get_caller_identity()
    print(f"account {ident['Account']} as {ident['Arn']}")


if __name__ == "__main__":
    main()

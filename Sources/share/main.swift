print("share")

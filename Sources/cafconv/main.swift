print("cafconv")

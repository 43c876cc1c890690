#!/bin/bash
# The bash+netcat client printed on the Kimble server page, unchanged except:
# host kimble-ai.dy.fi -> 127.0.0.1 and port 65430 -> ${PORT} (first argument).
PORT=${1:-65430}

response=`echo v001222 | netcat -q 0 127.0.0.1 $PORT`                #Aloittaa uuden pelin. Api versio 001. Kolme vastustajaa, kaikkien pelilogiikka 2
token=$(echo $response | cut -d" " -f 1)                                   #Token talteen (eka rivi)

echo token=$token                                                          #Näyttää tokenin (jos vaikka kiinnostaa nähdä se?)
while [ true ]                                                             #Silmukka jatkuu kunnes keskeytetään
        do
        if [[ $response == *"Voittaja"* ]]                                 #Tarkistetaan onko serverin vastauksessa merkkijono Voittaja
                then
                echo $response | rev | cut -d " " -f2 | rev                #Tulostetaan kuka voitti
                break                                                      #Lopetetaan
                fi

        n=`shuf -i 0-3 -n 1`                                               #Arvotaan jokin nappuloista: 0,1,2,3 (kehittynyt tekoäly, heh)
        response=`echo $token$n | netcat -q 0 127.0.0.1 $PORT`       #Lähetetään token ja heti sen perässä nappulan numero
        done                                                               #  (todennäköisesti nappulaa ei saa edes liikuttaa, jolloin serveri kertoo pelitilanteen uudestaan)
exit 0
